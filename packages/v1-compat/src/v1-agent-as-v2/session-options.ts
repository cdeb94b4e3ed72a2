import type * as V2 from '@acp-kit/schema';
import {
  v1ToV2ConfigOptionUpdate,
  v1ToV2CurrentModeUpdate,
  v1ToV2NewSessionResponse,
} from '../generated/compat/converters.js';
import type * as V1 from '../generated/v1/types.js';
import { V1_MODE_CONFIG_ID } from '../mode-options.js';

/** What a v1 session answer says about modes and options (session/new, load, resume, set_*). */
export interface V1SessionSettings {
  modes?: V1.SessionModeState | null;
  configOptions?: V1.SessionConfigOption[] | null;
}

/**
 * A v1 session's modes and configuration options as the v1 agent last reported them, and their
 * v2 form: the options, plus the modes as the option of category `mode` when no v1 option
 * already stands for them (the generated session/new conversion decides). v2 has one list where
 * v1 has two, so every v1 change is answered with the whole v2 list.
 */
export class SessionOptions {
  #modes: V1.SessionModeState | undefined;
  #options: V1.SessionConfigOption[] | undefined;

  /** Takes the modes and options of a v1 answer; fields the answer leaves out stay as they were. */
  take(settings: V1SessionSettings): void {
    if (settings.modes !== undefined) this.#modes = settings.modes ?? undefined;
    if (settings.configOptions !== undefined) this.#options = settings.configOptions ?? undefined;
  }

  /** The session's v2 configuration options, or undefined when the v1 agent reported none. */
  v2(): V2.SessionConfigOption[] | undefined {
    return v1ToV2NewSessionResponse({
      sessionId: '',
      ...(this.#modes === undefined ? {} : { modes: this.#modes }),
      ...(this.#options === undefined ? {} : { configOptions: this.#options }),
    }).configOptions;
  }

  /**
   * Whether setting `configId` is a v1 `session/set_mode`: it names the option that stands for
   * the v1 modes, and no v1 configuration option of that ID or of category mode exists.
   */
  isMode(configId: string): boolean {
    if (configId !== V1_MODE_CONFIG_ID || this.#modes === undefined) return false;
    return !(this.#options ?? []).some((o) => o.id === V1_MODE_CONFIG_ID || o.category === 'mode');
  }

  /** The v1 modes with `modeId` current (after a session/set_mode the agent answered). */
  modesWith(modeId: string): V1.SessionModeState | undefined {
    return this.#modes === undefined ? undefined : { ...this.#modes, currentModeId: modeId };
  }

  /** A v1 mode switch: the mode is taken, and the v2 update lists every option. */
  modeChanged(update: V1.CurrentModeUpdate): V2.ConfigOptionUpdate {
    const before = this.v2() ?? [];
    if (this.#modes !== undefined) this.#modes = { ...this.#modes, currentModeId: update.currentModeId };
    return v1ToV2CurrentModeUpdate(update, before);
  }

  /** A v1 options change: the options are taken, and the v2 update lists them with the modes. */
  optionsChanged(update: V1.ConfigOptionUpdate): V2.ConfigOptionUpdate {
    this.#options = update.configOptions;
    return { ...v1ToV2ConfigOptionUpdate(update), configOptions: this.v2() ?? [] };
  }
}
