/** The theme switch: system (prefers-color-scheme), light or dark, kept in localStorage for the next visit. */
import { byId } from './dom.js';

const THEME_KEY = 'acp-kit-inspect-theme';

/** Applies the saved theme and follows the switch in the app bar. */
export function wireTheme(): void {
  const themeSelect = byId<HTMLSelectElement>('theme');
  function applyTheme(theme: string): void {
    if (theme === '') document.documentElement.removeAttribute('data-theme');
    else document.documentElement.setAttribute('data-theme', theme);
    themeSelect.value = theme;
  }
  applyTheme(localStorage.getItem(THEME_KEY) ?? '');
  themeSelect.addEventListener('change', () => {
    localStorage.setItem(THEME_KEY, themeSelect.value);
    applyTheme(themeSelect.value);
  });
}
