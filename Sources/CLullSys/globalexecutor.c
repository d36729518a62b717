// Swift Concurrency's global executor hook, reached by the linker rather than by dlsym.
#include "lullsys.h"
#include <stddef.h>

// Defined by the Swift runtime (libswift_Concurrency): when set, every job for the global
// executor goes to it instead of the default thread pool. Its type is
// SWIFT_CC(swift) void (*)(Job *job, void (*original)(Job *)).
extern void *swift_task_enqueueGlobal_hook;

static lull_job_sink sink;

__attribute__((swiftcall)) static void lull_enqueue_global(void *job, void *original) {
    (void)original;
    sink(job);
}

int lull_take_over_global_executor(lull_job_sink jobs) {
    sink = jobs;
    void *expected = NULL;
    return __atomic_compare_exchange_n(
        &swift_task_enqueueGlobal_hook, &expected, (void *)&lull_enqueue_global, 0,
        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

// Jobs to run after a delay (Task.sleep, timeouts): by default these go to libdispatch's
// timers and worker threads, which take on the task's priority as a nice value and log an
// error each time an unprivileged daemon may not lower it. Types as in the runtime's header:
// (unsigned long long delay, Job *job, original) and
// (long long sec, long long nsec, long long tsec, long long tnsec, int clock, Job *job, original).
extern void *swift_task_enqueueGlobalWithDelay_hook;
extern void *swift_task_enqueueGlobalWithDeadline_hook;
__attribute__((swiftcall)) extern void swift_get_time(long long *seconds, long long *nanoseconds, int clock);

static lull_delayed_job_sink delayed_sink;

__attribute__((swiftcall)) static void lull_enqueue_global_with_delay(unsigned long long delay, void *job, void *original) {
    (void)original;
    delayed_sink(delay, job);
}

__attribute__((swiftcall)) static void lull_enqueue_global_with_deadline(
    long long sec, long long nsec, long long tsec, long long tnsec, int clock, void *job, void *original) {
    (void)tsec;
    (void)tnsec;
    (void)original;
    long long now_sec = 0, now_nsec = 0;
    swift_get_time(&now_sec, &now_nsec, clock);
    long long seconds = sec - now_sec;
    /* Past ~292 years the product overflows (a deadline of .distantFuture): such a wait is for ever. */
    if (seconds >= 9223372036LL) {
        delayed_sink(~0ULL, job);
        return;
    }
    long long delay = seconds * 1000000000LL + (nsec - now_nsec);
    delayed_sink(delay > 0 ? (unsigned long long)delay : 0, job);
}

int lull_take_over_delayed_global_jobs(lull_delayed_job_sink jobs) {
    delayed_sink = jobs;
    void *expected = NULL;
    int delay = __atomic_compare_exchange_n(
        &swift_task_enqueueGlobalWithDelay_hook, &expected, (void *)&lull_enqueue_global_with_delay, 0,
        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    expected = NULL;
    int deadline = __atomic_compare_exchange_n(
        &swift_task_enqueueGlobalWithDeadline_hook, &expected, (void *)&lull_enqueue_global_with_deadline, 0,
        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return delay && deadline;
}
