// Light and dark themes: the operator's choice (kept in this browser), else
// the system's. The choice sets data-theme on <html>; styles.css does the rest.
import { useCallback, useEffect, useState } from 'react';

export type ThemeChoice = 'light' | 'dark' | 'system';
const KEY = 'pgbase-studio-theme';

function apply(choice: ThemeChoice): void {
  const dark = choice === 'dark' || (choice === 'system' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

export function useTheme(): [ThemeChoice, (c: ThemeChoice) => void] {
  const [choice, setChoice] = useState<ThemeChoice>(() => (localStorage.getItem(KEY) as ThemeChoice | null) ?? 'system');
  useEffect(() => {
    apply(choice);
    if (choice !== 'system') return;
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    const follow = () => apply('system');
    media.addEventListener('change', follow);
    return () => media.removeEventListener('change', follow);
  }, [choice]);
  const choose = useCallback((c: ThemeChoice) => {
    localStorage.setItem(KEY, c);
    setChoice(c);
  }, []);
  return [choice, choose];
}
