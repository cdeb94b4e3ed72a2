/** `mandatory`: a MUST of the RFD; `advisory`: a SHOULD, or a check whose verdict depends on timing. */
export type RuleTier = 'mandatory' | 'advisory';

/** What the catalog says about one rule. */
export interface RuleInfo {
  /** Stable identifier, e.g. `prompt.response.message-id`. Never reused for a different rule. */
  id: string;
  /** The rule in one line. */
  statement: string;
  /** Where it comes from, e.g. `RFD §Change the session/prompt response`. */
  source: string;
  /** Whether breaking it fails conformance. */
  tier: RuleTier;
  /**
   * `unstable`: a rule of upstream's unstable surface (subagents…), applicable only when the
   * transcript uses that surface, so a stable-only agent is never failed by it.
   */
  surface?: 'unstable';
}

/** One observed violation, located in a transcript. */
export interface Finding {
  /** The rule broken. */
  ruleId: string;
  /** 0-based index of the message that shows the violation. */
  index?: number;
  /** 1-based line of that message in the transcript. */
  line?: number;
  /** RFC 6901 pointer to the offending value inside that message, when one value is at fault. */
  pointer?: string;
  /** What happened, in a sentence. */
  message: string;
  /** What the rule expected there. */
  expected?: string;
  /** What was actually there. */
  actual?: string;
  /** The live scenario whose transcript shows it (live runs only). */
  scenario?: string;
}

/** What one check concluded about one transcript. */
export type CheckOutcome =
  | {
      applicable: true;
      findings: Omit<Finding, 'ruleId' | 'line' | 'scenario'>[];
      /**
       * What the check saw that the rule allows but a host may want to know about (a replay-only
       * message under a fresh ID, say): reported with the verdict, never a failure.
       */
      notes?: Omit<Finding, 'ruleId' | 'line' | 'scenario'>[];
    }
  | { applicable: false; reason: string };

/** Verdict on a rule. */
export type RuleStatus = 'pass' | 'fail' | 'skip';

/** A rule with its verdict and evidence. */
export interface RuleResult extends RuleInfo {
  /** PASS when checked and never broken, FAIL when broken at least once, SKIP when nothing could check it. */
  status: RuleStatus;
  /** Why the rule was skipped. */
  reason?: string;
  /** The violations found (empty unless `status` is `fail`). */
  findings: Finding[];
  /** Observations the rule allows but reports (never a failure); absent when there are none. */
  notes?: Finding[];
}
