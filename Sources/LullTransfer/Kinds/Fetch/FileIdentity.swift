#if canImport(Glibc)
import Glibc
#endif

/// A file as a conditional GET must find it again (`FetchValidators.file`): on the same device
/// under the same inode (not replaced by a rename) with the same size and modification time
/// (not written since).
enum FileIdentity {
    static func text(of info: stat) -> String {
        "\(info.st_dev):\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }
}
