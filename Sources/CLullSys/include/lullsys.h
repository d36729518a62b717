#ifndef LULL_SYS_H
#define LULL_SYS_H
#include <sys/types.h>

/// Switches the calling thread's filesystem identity (fsuid, fsgid and supplementary groups)
/// to `uid`'s, so that files are opened with that user's rights. Linux keeps these per thread
/// when set through the raw system calls. Returns 0, or -1 with errno set.
int lull_become_fs_user(uid_t uid);

/// Restores the calling thread's filesystem identity to the process's own.
int lull_restore_fs_user(void);

#endif
