/// The kind of link that carries the traffic, for accounting and cost decisions.
public enum LinkType: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    case ethernet
    case wifi
    case cellular
    /// VPN, Bluetooth PAN, a tunnel, something unclassified.
    case other
    /// No link, or not known yet.
    case unknown
}
