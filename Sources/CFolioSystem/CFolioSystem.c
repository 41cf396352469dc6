#define _GNU_SOURCE
#include "CFolioSystem.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <spawn.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

ssize_t folio_getxattr(const char *path, const char *name, void *value, size_t size) {
  return lgetxattr(path, name, value, size);
}

int folio_setxattr(const char *path, const char *name, const void *value, size_t size) {
  return lsetxattr(path, name, value, size, 0);
}

int folio_removexattr(const char *path, const char *name) { return lremovexattr(path, name); }

int folio_rename_noreplace(const char *from, const char *to) {
#ifdef SYS_renameat2
  return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
#else
  errno = ENOSYS;
  return -1;
#endif
}

long folio_fs_type(const char *path) {
  struct statfs s;
  if (statfs(path, &s) != 0) return -1;
  return (long)s.f_type;
}

int folio_isatty(int fd) { return isatty(fd); }

#include <sys/stat.h>
int folio_birthtime(int dirfd, const char *name, int64_t *sec, int64_t *nsec) {
#ifdef STATX_BTIME
  struct statx sx;
  if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_BTIME, &sx) != 0) return -1;
  if (!(sx.stx_mask & STATX_BTIME)) return -1;
  *sec = sx.stx_btime.tv_sec;
  *nsec = sx.stx_btime.tv_nsec;
  return 0;
#else
  (void)dirfd; (void)name; (void)sec; (void)nsec;
  return -1;
#endif
}

#include <langinfo.h>
#include <locale.h>
#include <string.h>
#include <wchar.h>
int folio_wcwidth(unsigned int scalar) { return wcwidth((wchar_t)scalar); }

int folio_setup_utf8_ctype(void) {
  setlocale(LC_ALL, "");
  const char *cs = nl_langinfo(CODESET);
  if (cs && strcmp(cs, "UTF-8") == 0) return 1;
  if (setlocale(LC_CTYPE, "C.UTF-8") != NULL) {
    cs = nl_langinfo(CODESET);
    return cs && strcmp(cs, "UTF-8") == 0 ? 2 : 0;
  }
  return 0;
}

ssize_t folio_copy_file_range(int in_fd, int64_t *off_in, int out_fd, int64_t *off_out, size_t len) {
  loff_t in = *off_in, out = *off_out;
  ssize_t n = copy_file_range(in_fd, &in, out_fd, &out, len, 0);
  if (n > 0) {
    *off_in = in;
    *off_out = out;
  }
  return n;
}

int folio_spawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path) {
  return posix_spawn_file_actions_addchdir_np(actions, path);
}
