/// The answer to `POST /v1/reload` when the daemon read its config again (a refused reload is
/// an error answer instead, `422 invalid_config`).
public struct ReloadView: Codable, Sendable, Equatable {
    /// The config file read, nil when there is none and the embedded defaults stay.
    public var config: String?
    /// Every file read, the config file first, then its drop-ins in the order they apply.
    public var files: [String]
    /// Job classes in the policy now in force.
    public var classes: Int
    /// What happened, in words, for a person or a log.
    public var message: String

    public init(config: String?, files: [String], classes: Int, message: String) {
        self.config = config
        self.files = files
        self.classes = classes
        self.message = message
    }
}
