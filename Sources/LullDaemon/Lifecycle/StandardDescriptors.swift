#if canImport(Glibc)
import Glibc
#endif

/// Descriptors 0, 1 and 2 are opened on /dev/null where lulld was started without them. Else
/// the first files and pipes it opens would take those numbers: a run job's output pipe on 1
/// would be closed at its exec (as the target of `dup2(fd, 1)` it keeps its close-on-exec
/// flag), and a log line written to "stderr" would go into whatever file sits on 2.
public enum StandardDescriptors {
    public static func ensureOpen() {
        for fd in CInt(0)...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let opened = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY)
            // open takes the lowest free number, which is `fd` while the ones below are open.
            if opened >= 0, opened != fd {
                dup2(opened, fd)
                close(opened)
            }
        }
    }
}
