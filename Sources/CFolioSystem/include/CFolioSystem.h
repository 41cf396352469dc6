// Thin C wrappers for Linux calls that Swift cannot import through Glibc.
#ifndef CFOLIOSYSTEM_H
#define CFOLIOSYSTEM_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <spawn.h>

/// getxattr/setxattr/removexattr without following a final symlink. Return -1 and set errno on failure.
ssize_t folio_getxattr(const char *path, const char *name, void *value, size_t size);
int folio_setxattr(const char *path, const char *name, const void *value, size_t size);
int folio_removexattr(const char *path, const char *name);

/// rename that fails with EEXIST instead of replacing the target (renameat2 RENAME_NOREPLACE).
/// Falls back to link+unlink semantics is NOT attempted: callers get ENOSYS/EINVAL and decide.
int folio_rename_noreplace(const char *from, const char *to);

/// copy_file_range(2): the kernel copies (or, on filesystems that can, shares) up to len bytes from
/// in_fd at *off_in to out_fd at *off_out, advancing both. -1 and errno on failure (EXDEV, ENOSYS,
/// EINVAL, EOPNOTSUPP where it cannot: the caller copies by reading and writing).
ssize_t folio_copy_file_range(int in_fd, int64_t *off_in, int out_fd, int64_t *off_out, size_t len);

/// The f_type magic of the filesystem holding path (statfs), or -1.
long folio_fs_type(const char *path);

/// 1 when stdout/stderr style fd is a terminal.
int folio_isatty(int fd);



#include <stdint.h>
/// Birth time of dirfd/name via statx (without following a final symlink). Returns 0 and fills
/// sec/nsec when the filesystem records it, -1 otherwise.
int folio_birthtime(int dirfd, const char *name, int64_t *sec, int64_t *nsec);

#include <wchar.h>
/// Column width of a character (glibc wcwidth): -1 for non-printable, 0 for combining marks, 2 for
/// wide. Needs a UTF-8 LC_CTYPE (setlocale) to answer for non-ASCII characters.
int folio_wcwidth(unsigned int scalar);
/// Sets LC_CTYPE from the environment, falling back to C.UTF-8; returns 1 when the result is UTF-8.
int folio_setup_utf8_ctype(void);

/// posix_spawn_file_actions_addchdir_np (glibc 2.29): the child changes to `path` between fork and
/// exec. Glibc declares it only with _GNU_SOURCE / _DEFAULT_SOURCE, which Swift's Glibc module does not set.
int folio_spawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path);

#if defined(__linux__)
/// libdispatch's hooks for a run loop on the main thread (CoreFoundation's CFRunLoop uses them):
/// the main queue's eventfd, readable when work is queued on it, and the call that runs that work.
/// Declared in libdispatch's private headers only. `folio` drains the main queue with them
/// instead of `dispatch_main()` (FolioCommandLine's MainQueueLoop).
int _dispatch_get_main_queue_handle_4CF(void);
void _dispatch_main_queue_callback_4CF(void *message);
#endif

#endif
