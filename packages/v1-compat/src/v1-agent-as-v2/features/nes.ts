import type { BridgeFeature } from './index.js';
import { notify, relay } from './relay.js';

/** Next edit suggestions (unstable in both): the same methods and shapes, relayed as they are. */
export const nes: BridgeFeature = (bridge) => ({
  'nes/start': relay(bridge, 'nes/start'),
  'nes/suggest': relay(bridge, 'nes/suggest'),
  'nes/close': relay(bridge, 'nes/close'),
  'nes/accept': notify(bridge, 'nes/accept'),
  'nes/reject': notify(bridge, 'nes/reject'),
  'document/didOpen': notify(bridge, 'document/didOpen'),
  'document/didChange': notify(bridge, 'document/didChange'),
  'document/didClose': notify(bridge, 'document/didClose'),
  'document/didSave': notify(bridge, 'document/didSave'),
  'document/didFocus': notify(bridge, 'document/didFocus'),
});
