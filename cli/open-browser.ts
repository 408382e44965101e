/** Opens a URL in the user's browser, only where one can show up: a desktop session on Linux, macOS, Windows. */
import { spawn } from 'node:child_process';

export function openInBrowser(url: string): void {
  const opener =
    process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '', url]
        : process.env.DISPLAY || process.env.WAYLAND_DISPLAY
          ? ['xdg-open', url]
          : undefined;
  if (!opener) return;
  const child = spawn(opener[0]!, opener.slice(1), { detached: true, stdio: 'ignore' });
  child.on('error', () => {}); // no opener installed: the printed URL is enough
  child.unref();
}
