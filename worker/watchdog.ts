/**
 * Keeps a child process alive only while this process is: Node cannot set PR_SET_PDEATHSIG, and an
 * 'exit' hook alone misses SIGKILL. `sh -c WATCHDOG(signal) program args…` runs `cat` on a copy of
 * our end of its stdin pipe (sh gives background jobs /dev/null as stdin, hence `<&3`); when the
 * pipe closes, however we die, the child gets `signal`. The program is exec'd in the foreground,
 * so `$$` is its pid (the process to measure and to kill), and it shuts down as fast as it can.
 */
export function watchdog(signal: 'TERM' | 'KILL'): string {
  return `exec 3<&0; (cat <&3 >/dev/null; kill -${signal} $$ 2>/dev/null) & exec "$0" "$@"`;
}
