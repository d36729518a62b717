/// `[hooks]`: which service manager completion hooks (`on_complete_unit`) start units in, and
/// which units a system instance may start.
public struct HookSettings: Sendable, Equatable {
    /// Whose service manager runs the units.
    public enum Manager: Sendable, Equatable, CustomStringConvertible {
        /// The user manager when lulld itself runs in a user unit, else the system manager.
        case auto
        case system
        case user
        /// A bus address whose `org.freedesktop.systemd1` is used like the system manager
        /// (tests, containers).
        case address(String)

        public var description: String {
            switch self {
            case .auto: "auto"
            case .system: "system"
            case .user: "user"
            case .address(let address): address
            }
        }
    }

    /// `[hooks] manager`.
    public var manager: Manager = .auto
    /// `[hooks] allowed_units`: the only units a job may name when lulld serves other users
    /// (the system manager). Empty there means no job may start a unit.
    public var allowedUnits: [String] = []

    public init() {}
}
