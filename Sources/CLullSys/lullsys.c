#define _GNU_SOURCE
#include <stdio.h>
#include "lullsys.h"
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LULL_MAX_GROUPS 256

/* The thread's own groups, saved when it first takes on another user's identity. */
static __thread gid_t saved_groups[LULL_MAX_GROUPS];
static __thread int saved_count = -1;

int lull_become_fs_user(uid_t uid) {
    struct passwd entry, *found = NULL;
    char buffer[16384];
    gid_t gid = (gid_t)uid;
    gid_t small[LULL_MAX_GROUPS];
    gid_t *groups = small;
    int count = 0;
    int failed = getpwuid_r(uid, &entry, buffer, sizeof buffer, &found);
    /* A database that answers an error (sssd or LDAP down) must not be taken for an uid without
       an entry: its stand-in group, the uid's number, may be another account's. */
    if (failed != 0) { errno = failed; return -1; }
    if (found != NULL) {
        gid = found->pw_gid;
        count = LULL_MAX_GROUPS;
        if (getgrouplist(found->pw_name, gid, groups, &count) < 0) {
            /* More groups than the array holds (common under AD): count says how many. Dropping
               them would refuse the owner what those groups allow. */
            gid_t *larger = count > LULL_MAX_GROUPS ? malloc(sizeof(gid_t) * (size_t)count) : NULL;
            if (larger == NULL || getgrouplist(found->pw_name, gid, larger, &count) < 0) {
                free(larger);
                errno = ENOMEM;
                return -1;
            }
            groups = larger;
        }
    }
    if (count == 0) { groups[0] = gid; count = 1; }
    if (saved_count < 0) {
        saved_count = getgroups(LULL_MAX_GROUPS, saved_groups);
        if (saved_count < 0) saved_count = 0;
    }
    /* Raw system calls: glibc's wrappers would apply these to every thread of the process. */
    long set = syscall(SYS_setgroups, (size_t)count, groups);
    if (groups != small) free(groups);
    if (set != 0) return -1;
    syscall(SYS_setfsgid, gid);
    if ((gid_t)syscall(SYS_setfsgid, (gid_t)-1) != gid) { errno = EPERM; return -1; }
    syscall(SYS_setfsuid, uid);
    if ((uid_t)syscall(SYS_setfsuid, (uid_t)-1) != uid) { errno = EPERM; return -1; }
    return 0;
}

int lull_restore_fs_user(void) {
    uid_t euid = geteuid();
    gid_t egid = getegid();
    syscall(SYS_setfsuid, euid);
    syscall(SYS_setfsgid, egid);
    if (saved_count < 0) return 0;
    return (int)syscall(SYS_setgroups, (size_t)saved_count, saved_groups);
}

int lull_can_switch_fs_user(void) {
    struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
    if (syscall(SYS_capget, &header, data) != 0) return geteuid() == 0;
    unsigned setuid_bit = 1u << CAP_SETUID, setgid_bit = 1u << CAP_SETGID;
    return (data[0].effective & setuid_bit) && (data[0].effective & setgid_bit);
}

int lull_can_start_others_commands(void) {
    struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
    if (syscall(SYS_capget, &header, data) != 0) return 0;
    unsigned needed = (1u << CAP_SETUID) | (1u << CAP_SETGID) | (1u << CAP_KILL);
    if ((data[0].effective & needed) != needed) return 0;
    /* systemd's SystemCallFilter=~@privileged denies these whatever the capabilities. */
    if (syscall(SYS_setresuid, -1, -1, -1) != 0) return 0;
    if (syscall(SYS_setresgid, -1, -1, -1) != 0) return 0;
    return syscall(SYS_capset, &header, data) == 0;
}

int lull_start_writeback(int fd, long long offset, long long length) {
    return sync_file_range(fd, (off_t)offset, (off_t)length, SYNC_FILE_RANGE_WRITE);
}

int lull_syncfs(int fd) {
    return syncfs(fd);
}

int lull_flush_standard_output(void) {
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
    return errno != 0 ? errno : EIO;
}
