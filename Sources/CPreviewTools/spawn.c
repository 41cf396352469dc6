// The helper spawn shim: fork, set up the child with async-signal-safe calls only, exec.
#define _GNU_SOURCE
#include "CPreviewTools.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/// Reports errno to the parent and ends the child (async-signal-safe).
static void child_fail(int report_fd) {
  int code = errno;
  ssize_t n;
  do {
    n = write(report_fd, &code, sizeof code);
  } while (n < 0 && errno == EINTR);
  _exit(127);
}

static int set_limit(int resource, uint64_t value) {
  struct rlimit limit = {.rlim_cur = (rlim_t)value, .rlim_max = (rlim_t)value};
  return setrlimit(resource, &limit);
}

/// Marks every descriptor from 3 up close-on-exec: those other threads opened without O_CLOEXEC
/// must not reach the helper (nor keep a pipe of theirs open).
static void cloexec_from_3(void) {
  if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
  long max = sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 65536) max = 65536;
  for (int fd = 3; fd < max; fd++) {
    int flags = fcntl(fd, F_GETFD);
    if (flags >= 0) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
  }
}

int folio_spawn_helper(const char *path, char *const argv[], char *const envp[], const char *cwd, int out_fd,
                       int err_fd, const folio_helper_limits *limits, pid_t *pid) {
  if (out_fd <= 2 || err_fd <= 2) return EINVAL;
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return errno;

  // No signal handler may run in the child before its dispositions are reset.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t child = fork();
  if (child == 0) {
    close(report[0]);
    struct sigaction deflt;
    memset(&deflt, 0, sizeof deflt);
    deflt.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++) sigaction(s, &deflt, NULL);  // fails harmlessly for KILL, STOP
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (setsid() < 0) child_fail(report[1]);
    if (limits->cpu_seconds && set_limit(RLIMIT_CPU, limits->cpu_seconds) != 0) child_fail(report[1]);
    if (limits->address_space_bytes && set_limit(RLIMIT_AS, limits->address_space_bytes) != 0) child_fail(report[1]);
    if (limits->file_size_bytes && set_limit(RLIMIT_FSIZE, limits->file_size_bytes) != 0) child_fail(report[1]);
    if (set_limit(RLIMIT_CORE, limits->core_bytes) != 0) child_fail(report[1]);
    if (cwd && chdir(cwd) != 0) child_fail(report[1]);
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd < 0) child_fail(report[1]);
    if (dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) child_fail(report[1]);
    cloexec_from_3();
    execve(path, argv, envp);
    child_fail(report[1]);
  }
  int fork_error = child < 0 ? errno : 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  close(report[1]);
  if (fork_error) {
    close(report[0]);
    return fork_error;
  }
  // Blocks only until the exec (which closes the pipe) or the child's report.
  int code = 0;
  ssize_t n;
  do {
    n = read(report[0], &code, sizeof code);
  } while (n < 0 && errno == EINTR);
  close(report[0]);
  if (n == (ssize_t)sizeof code) {
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return code ? code : EIO;
  }
  *pid = child;
  return 0;
}

int folio_output_pipe(int fds[2]) {
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  int flags = fcntl(fds[0], F_GETFL);
  if (flags < 0 || fcntl(fds[0], F_SETFL, flags | O_NONBLOCK) != 0) {
    int code = errno;
    close(fds[0]);
    close(fds[1]);
    errno = code;
    return -1;
  }
  return 0;
}

int folio_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
  return (int)syscall(SYS_pidfd_open, pid, 0);
#else
  errno = ENOSYS;
  return -1;
#endif
}

int folio_has_exited(pid_t pid) {
  siginfo_t info;
  memset(&info, 0, sizeof info);
  int rc;
  do {
    rc = waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) return -1;
  return info.si_pid == pid ? 1 : 0;
}

int folio_reap(pid_t pid, int *exit_code, int *signal) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  *signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return 0;
}
