/**
 * The extension names earlier bridges gave v1 update kinds before they were converted natively.
 * The bridge no longer sends them; the v2 → v1 direction still accepts them from older peers.
 */
export const V1_ONLY_UPDATES = {
  available_commands_update: '_available_commands_update',
  current_mode_update: '_current_mode_update',
  config_option_update: '_config_option_update',
  session_info_update: '_session_info_update',
} as const;
