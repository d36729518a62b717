import CSystemd
import LullSensors

#if canImport(Glibc)
import Glibc
#endif

/// The service manager completion hooks start units in, as resolved at start-up from
/// `[hooks] manager`: a daemon running in a user unit talks to its user's manager and may
/// start any of that user's units; otherwise it talks to the system manager and starts only
/// what the admin allows.
struct HookManager: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case system
        case user
    }

    let kind: Kind
    let endpoint: BusEndpoint

    init(_ setting: HookSettings.Manager) {
        switch setting {
        case .system: (kind, endpoint) = (.system, .system)
        case .user: (kind, endpoint) = (.user, .user)
        case .address(let address): (kind, endpoint) = (.system, .address(address))
        case .auto: (kind, endpoint) = OwnServiceManager.isUsers ? (.user, .user) : (.system, .system)
        }
    }

    /// The units a job may name: any for a user's own manager (unless the file lists some),
    /// only the listed ones for the system manager.
    func allowedUnits(_ listed: [String]) -> Set<String>? {
        switch kind {
        case .user: listed.isEmpty ? nil : Set(listed)
        case .system: Set(listed)
        }
    }

    var description: String {
        switch kind {
        case .system: "system manager (\(endpoint))"
        case .user: "user manager (\(endpoint))"
        }
    }
}
