#define _GNU_SOURCE
#include "lullsys.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <poll.h>
#include <pthread.h>
#include <time.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

int lull_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int lull_pidfd_send_signal(int pidfd, int sig) { return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0); }

int lull_child_exited(pid_t pid) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    return waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

int lull_pipe(int fds[2], int nonblocking) { return pipe2(fds, O_CLOEXEC | (nonblocking ? O_NONBLOCK : 0)); }

/* What the child of fork reports through the status pipe when it cannot exec. */
struct child_failure {
    int step;
    int error;
};

static const char *const steps[] = {
    "stdin", "output", "signals", "setgroups", "setgid", "setuid", "capabilities", "chdir", "exec", "nice", "cgroup",
    "rlimit"};

/* Closes descriptors low to high: close_range (Linux 5.9), else one by one below `limit`, the
   number of descriptors the daemon could have open when it forked. */
static void close_between(unsigned low, unsigned high, unsigned limit) {
    unsigned fd;
    if (syscall(SYS_close_range, low, high, 0) == 0) return;
    for (fd = low; fd <= high && fd < limit; fd++) close((int)fd);
}

/* Between fork and execve only async-signal-safe calls: raw system calls, dup2, open, execve. */
static void become_and_exec(const struct lull_spawn_request *r, const struct rlimit *nofile, unsigned open_limit,
                            int status_fd) {
    struct child_failure failure = {0, 0};
    int null_fd, signal_number;
    struct sigaction default_action;
    sigset_t none;
    /* First, with the daemon's rights: whatever the command starts is born in its cgroup. */
    if (r->cgroup_procs_fd >= 0 && write(r->cgroup_procs_fd, "0", 1) != 1) { failure.step = 10; goto fail; }
    setsid();
    null_fd = open("/dev/null", O_RDONLY);
    if (null_fd < 0 || dup2(null_fd, 0) < 0) { failure.step = 0; goto fail; }
    if (dup2(r->output_fd, 1) < 0 || dup2(r->output_fd, 2) < 0) { failure.step = 1; goto fail; }
    memset(&default_action, 0, sizeof default_action);
    default_action.sa_handler = SIG_DFL;
    for (signal_number = 1; signal_number < NSIG; signal_number++) sigaction(signal_number, &default_action, NULL);
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) != 0) { failure.step = 2; goto fail; }
    /* Before the identity changes: a niceness below the daemon's needs its privilege. */
    if (r->set_nice && syscall(SYS_setpriority, PRIO_PROCESS, 0, r->nice) != 0) { failure.step = 9; goto fail; }
    if (!r->switch_identity) goto identity_done;
    /* Raw system calls: the child has one thread, and glibc's wrappers would signal the others. */
    if (syscall(SYS_setgroups, (size_t)r->group_count, r->groups) != 0) { failure.step = 3; goto fail; }
    if (syscall(SYS_setresgid, r->gid, r->gid, r->gid) != 0) { failure.step = 4; goto fail; }
    if (syscall(SYS_setresuid, r->uid, r->uid, r->uid) != 0) { failure.step = 5; goto fail; }
    /* A daemon that is an unprivileged user with ambient CAP_SETUID and CAP_SETGID (the system
       unit's) keeps them across a switch between two non-root uids, and ambient ones survive
       execve: the owner's command would be able to make itself root. It gets none. (Root's own
       command gets root's capabilities back from execve, as any root program does.) */
    if (r->uid != 0) {
        struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
        struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3];
        memset(none, 0, sizeof none);
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
            failure.step = 6;
            goto fail;
        }
        if (syscall(SYS_capset, &header, none) != 0) { failure.step = 6; goto fail; }
    }
identity_done:
    /* After the switch, so the directory is entered with the owner's rights. */
    if (chdir(r->directory) != 0) { failure.step = 7; goto fail; }
    if (nofile != NULL && syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, nofile, NULL) != 0) { failure.step = 11; goto fail; }
    /* Everything but 0-2 and the status pipe (close-on-exec, it closes when execve succeeds). */
    if (status_fd > 3) close_between(3, (unsigned)status_fd - 1, open_limit);
    close_between((unsigned)status_fd + 1, ~0U, open_limit);
    execve(r->path, r->argv, r->envp);
    failure.step = 8;
fail:
    failure.error = errno;
    while (write(status_fd, &failure, sizeof failure) < 0 && errno == EINTR) {}
    _exit(127);
}

static long long monotonic_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* Waits until the status pipe has news (the child executed, or failed and said why). Returns
   NULL then, or "cancelled" / "timeout" when the attempt is to stop first. */
static const char *wait_for_exec(int status_fd, int cancel_fd, int timeout_ms) {
    long long deadline = timeout_ms < 0 ? -1 : monotonic_ms() + timeout_ms;
    for (;;) {
        struct pollfd fds[2] = {{status_fd, POLLIN, 0}, {cancel_fd, POLLIN, 0}};
        long long left = deadline < 0 ? -1 : deadline - monotonic_ms();
        int ready;
        if (deadline >= 0 && left <= 0) return "timeout";
        ready = poll(fds, cancel_fd >= 0 ? 2 : 1, left < 0 ? -1 : (left > INT_MAX ? INT_MAX : (int)left));
        if (ready < 0 && errno != EINTR) return NULL;
        if (ready <= 0) continue;
        if (fds[0].revents != 0) return NULL;
        if (cancel_fd >= 0 && fds[1].revents != 0) return "cancelled";
    }
}

pid_t lull_spawn(const struct lull_spawn_request *r, const char **failed_step) {
    int status[2];
    struct child_failure failure;
    ssize_t got;
    pid_t pid;
    struct rlimit nofile;
    unsigned open_limit;
    const char *stop;
    sigset_t all, mask;
    int error;
    *failed_step = "";
    /* Read before fork: the child keeps the hard limit and takes the soft one it is given. */
    if (getrlimit(RLIMIT_NOFILE, &nofile) != 0) {
        *failed_step = "rlimit";
        return -1;
    }
    open_limit = nofile.rlim_cur > INT_MAX ? INT_MAX : (unsigned)nofile.rlim_cur;
    if (r->restore_nofile && r->nofile_soft < nofile.rlim_max) nofile.rlim_cur = (rlim_t)r->nofile_soft;
    if (pipe2(status, O_CLOEXEC) != 0) {
        *failed_step = "pipe";
        return -1;
    }
    /* The child starts with every signal blocked and sets every handler to its default before it
       unblocks them: a vfork child shares the daemon's memory, where a handler must never run. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &mask);
    /* vfork when the identity stays: fork copies the page tables of a daemon with many threads
       and makes its next writes fault (copy on write), several milliseconds per command. An
       identity switch in a vfork child would mark the shared memory undumpable, so it forks. */
    pid = r->switch_identity ? fork() : vfork();
    if (pid == 0) {
        close(status[0]);
        become_and_exec(r, r->restore_nofile ? &nofile : NULL, open_limit, status[1]);
    }
    error = errno;
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    if (pid < 0) {
        close(status[0]);
        close(status[1]);
        *failed_step = "fork";
        errno = error;
        return -1;
    }
    close(status[1]);
    stop = wait_for_exec(status[0], r->cancel_fd, r->timeout_ms);
    if (stop != NULL) {
        /* The child is killed before or just after it executes: either way the attempt ends. */
        kill(pid, SIGKILL);
        kill(-pid, SIGKILL);
    }
    do {
        got = read(status[0], &failure, sizeof failure);
    } while (got < 0 && errno == EINTR);
    close(status[0]);
    if (stop != NULL) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
        *failed_step = stop;
        errno = ECANCELED;
        return -1;
    }
    if (got == (ssize_t)sizeof failure) {
        /* The child did not exec: collect it, and say which step failed. */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
        *failed_step = steps[failure.step];
        errno = failure.error;
        return -1;
    }
    return pid;
}
