#ifndef LULL_SYS_H
#define LULL_SYS_H
#include <sys/types.h>
#include <sys/xattr.h>

/// Switches the calling thread's filesystem identity (fsuid, fsgid and supplementary groups)
/// to `uid`'s, so that files are opened with that user's rights. Linux keeps these per thread
/// when set through the raw system calls. Returns 0, or -1 with errno set, also when the
/// password database answers an error (an uid it has no entry for gets its own number as group).
int lull_become_fs_user(uid_t uid);

/// Restores the calling thread's filesystem identity to the process's own.
int lull_restore_fs_user(void);

/// 1 when the process may take on other users' filesystem identities: CAP_SETUID and
/// CAP_SETGID are in its effective set (root, or an unprivileged user given just those two
/// capabilities, as the system unit does); else 0.
int lull_can_switch_fs_user(void);

/// 1 when the process may start a command as another user and stop it: CAP_SETUID, CAP_SETGID
/// and CAP_KILL are in its effective set, and no seccomp filter denies the calls the switch
/// makes (each tried as a no-op on the calling thread); else 0.
int lull_can_start_others_commands(void);

/// Starts writing back a file range to disk without waiting (sync_file_range with
/// SYNC_FILE_RANGE_WRITE), so a later fsync has little left to do.
int lull_start_writeback(int fd, long long offset, long long length);

/// syncfs(2): writes back the whole filesystem holding `fd` (glibc declares it only with _GNU_SOURCE).
int lull_syncfs(int fd);

/// Receives each job Swift Concurrency hands to the global executor (a `Job *`).
typedef void (*lull_job_sink)(void *job);

/// Sends every job for Swift Concurrency's global executor to `jobs`, through the runtime's
/// `swift_task_enqueueGlobal_hook`. The linker resolves the hook, so this works where a lookup
/// by name does not: a binary built with `--static-swift-stdlib` keeps the runtime's symbols
/// out of its dynamic symbol table. Returns 1, or 0 if a hook was already installed.
int lull_take_over_global_executor(lull_job_sink jobs);

/// Receives each delayed job (`Task.sleep`, timeouts) with its delay in nanoseconds.
typedef void (*lull_delayed_job_sink)(unsigned long long nanoseconds, void *job);

/// Sends Swift Concurrency's delayed global jobs to `jobs` (the runtime's
/// `swift_task_enqueueGlobalWithDelay_hook` and `..._WithDeadline_hook`; a deadline becomes a
/// delay from now on its own clock). Returns 1, or 0 if a hook was already installed.
int lull_take_over_delayed_global_jobs(lull_delayed_job_sink jobs);

/// The terminal columns a Unicode scalar takes by the C library's width table (`wcwidth`,
/// which Swift's Glibc module does not declare): 0, 1 or 2, or -1 when the table does not know
/// it or the locale's character type is not UTF-8.
int lull_wcwidth(unsigned int scalar);

/// Gives the heap's free memory back to the system (glibc's `malloc_trim(0)`, which Swift's
/// Glibc module does not declare). Returns 1 if any memory was released, else 0.
int lull_trim_heap(void);

/// What a run job's process starts with. `argv` and `envp` end with NULL. The process gets a
/// new session and process group, stdin from /dev/null, stdout and stderr on `output_fd`, no
/// other descriptor, every signal at its default action and none blocked.
struct lull_spawn_request {
    const char *path;
    char *const *argv;
    char *const *envp;
    const char *directory;
    int output_fd;
    /// Non-zero: take on `uid`, `gid` and `groups` before changing directory and executing.
    int switch_identity;
    uid_t uid;
    gid_t gid;
    const gid_t *groups;
    int group_count;
    /// Non-zero: the process starts at niceness `nice` (-20 to 19; below the daemon's own needs
    /// CAP_SYS_NICE).
    int set_nice;
    int nice;
    /// Not -1: `cgroup.procs` of the cgroup the process starts in, open for writing; the child
    /// moves itself there first, so everything it ever starts is in it.
    int cgroup_procs_fd;
    /// Non-zero: the process's soft RLIMIT_NOFILE becomes `nofile_soft` before it executes (the
    /// limit lulld was started with; lulld raises its own, and a command should not inherit that).
    int restore_nofile;
    unsigned long long nofile_soft;
    /// Not -1: a descriptor that becomes readable when the attempt is to stop. Until the
    /// program is executing (a working directory on a hung NFS or FUSE mount can hold the child
    /// in chdir for ever), that, or `timeout_ms` passing (-1: none), kills the child.
    int cancel_fd;
    int timeout_ms;
};

/// Starts the process with fork and execve, doing only async-signal-safe work between the two,
/// and waits until the program is executing or the child has failed. Returns the pid, or -1
/// with `*failed_step` naming what failed ("exec", "chdir", "setuid", ...) and errno set to
/// why; "cancelled" or "timeout" when `cancel_fd` or `timeout_ms` ended the wait.
pid_t lull_spawn(const struct lull_spawn_request *request, const char **failed_step);

/// A descriptor that becomes readable when process `pid` exits (pidfd_open), or -1 with errno
/// set (ENOSYS before Linux 5.3).
int lull_pidfd_open(pid_t pid);

/// Sends `sig` to the process a pidfd refers to (pidfd_send_signal, Linux 5.1): never to a
/// later process that took its pid. Returns 0, or -1 with errno set (ESRCH once it has exited).
int lull_pidfd_send_signal(int pidfd, int sig);

/// 1 when child `pid` has exited (it is left unreaped: waitid with WNOWAIT), else 0.
int lull_child_exited(pid_t pid);

/// pipe2 with O_CLOEXEC, and O_NONBLOCK on both ends when `nonblocking` (Swift's Glibc module
/// does not declare pipe2). Returns 0, or -1 with errno set.
int lull_pipe(int fds[2], int nonblocking);

/// Flushes standard output and reports whether any write to it failed since the start:
/// 0, or the errno of the failure (EPIPE when its reader went away).
int lull_flush_standard_output(void);

#endif
