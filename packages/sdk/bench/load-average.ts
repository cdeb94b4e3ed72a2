/** The machine's 1, 5 and 15 minute load averages, printed beside every figure (Linux; '' elsewhere). */
import { existsSync, readFileSync } from 'node:fs';

export function loadAverage(): string {
  if (!existsSync('/proc/loadavg')) return '';
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}
