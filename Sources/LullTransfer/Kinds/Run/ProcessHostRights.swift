import CLullSys
import LullCore

#if canImport(Glibc)
import Glibc
#endif

/// Whose commands this lulld can start itself. Starting another user's command takes becoming
/// that uid (CAP_SETUID, CAP_SETGID, and system calls no seccomp filter denies) and stopping
/// it takes signalling its processes (CAP_KILL). Root has all of it; the system unit's `lull`
/// user has the first two capabilities only, and its unit filters the calls, so it can start
/// only its own.
public enum ProcessHostRights {
    /// The one owner whose commands the process host runs here: nil when it runs anyone's.
    public static func commandsOnlyOf() -> OwnerID? {
        lull_can_start_others_commands() != 0 ? nil : OwnerID(geteuid())
    }
}
