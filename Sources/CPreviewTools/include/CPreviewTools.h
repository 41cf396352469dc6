// What PreviewTools needs from C: a spawn that puts a helper in its own session with resource
// limits (posix_spawn cannot set rlimits, Foundation.Process cannot setsid), process-exit polling
// through a pidfd, and libmagic's API (libmagic-dev at build time, libmagic1 + libmagic-mgc at run
// time), opened on first use (magic.c says why).
#ifndef CPREVIEWTOOLS_H
#define CPREVIEWTOOLS_H
#include <stdint.h>
#include <sys/types.h>
#include <magic.h>

/// Limits set in the child before exec (setrlimit, soft = hard, so the helper cannot raise them).
/// 0 leaves a limit as inherited, except core_bytes, which is always set.
typedef struct folio_helper_limits {
  uint64_t cpu_seconds;
  uint64_t address_space_bytes;
  uint64_t file_size_bytes;
  uint64_t core_bytes;
} folio_helper_limits;

/// Starts `path` (an absolute path: no PATH search happens after fork) with `argv` and `envp`.
///
/// In the child, before exec: every signal disposition back to default and none blocked, a new
/// session (setsid: its own process group, no controlling terminal, so nothing can prompt on
/// /dev/tty), the limits, `cwd`, stdin from /dev/null, stdout to `out_fd`, stderr to `err_fd`, and
/// every other descriptor closed on exec. `out_fd` and `err_fd` must be > 2.
///
/// Returns 0 and sets `*pid` once the child has exec'd; otherwise the errno of what failed (fork,
/// or the child's setup or exec, reported through a close-on-exec pipe), with the child reaped.
int folio_spawn_helper(const char *path, char *const argv[], char *const envp[], const char *cwd, int out_fd,
                       int err_fd, const folio_helper_limits *limits, pid_t *pid);

/// A pipe for a child's output: both ends close-on-exec, the read end (fds[0]) non-blocking.
/// Returns 0, or -1 with errno.
int folio_output_pipe(int fds[2]);

/// pidfd_open(2): a descriptor that polls readable when `pid` exits. -1 with errno (ENOSYS before
/// Linux 5.3: the caller then polls folio_has_exited on a timer).
int folio_pidfd_open(pid_t pid);

/// 1 when the child `pid` has exited (left a zombie: it is NOT reaped, so its pid and process group
/// id cannot be reused yet), 0 while it runs, -1 with errno (ECHILD: someone else reaped it).
int folio_has_exited(pid_t pid);

/// Waits for and reaps the child `pid`. Returns 0 and sets `*exit_code` (when it exited; else -1)
/// and `*signal` (the signal that ended it; else 0); -1 with errno.
int folio_reap(pid_t pid, int *exit_code, int *signal);

/// Opens libmagic (libmagic.so.1) on first use and resolves its functions; thread-safe. Returns 1,
/// or 0 with a sentence naming the package in `why` (a failure is tried again next time).
int folio_magic_load(char *why, size_t why_size);

/// libmagic's functions, through the pointers folio_magic_load resolved: call only after it
/// returned 1.
magic_t folio_magic_open(int flags);
int folio_magic_load_database(magic_t cookie, const char *path);
const char *folio_magic_error(magic_t cookie);
int folio_magic_setflags(magic_t cookie, int flags);
const char *folio_magic_buffer(magic_t cookie, const void *buffer, size_t length);
void folio_magic_close(magic_t cookie);

#endif
