/// Where lulld runs commands (`[run] host`): as transient systemd units, which can enforce
/// `cpu_weight`, `memory_max`, `io_weight` and `tasks_max`, or as processes it starts itself,
/// where only `nice` applies. `auto` is resolved at start-up to one of the other two.
public enum RunHost: String, Sendable, Equatable, CaseIterable {
    case auto
    case systemd
    case process
}
