/// What a run job's submitter may ask for.
extension RunJob {
    public func validate(owner: OwnerID, with validator: JobSpecValidator) throws(ValidationError) {
        // A negative niceness puts the command ahead of every other user's programs.
        if let nice, nice < 0, owner != .root {
            throw ValidationError(
                .forbidden,
                field: "nice",
                "nice is \(nice); a niceness below 0 would run the command ahead of other users' programs, which only root may ask for; give 0 to 19"
            )
        }
        if unit == nil, let only = validator.commandsOnlyOf, owner != only {
            throw ValidationError(.forbidden, field: "argv", Self.cannotRun(as: owner, daemon: only))
        }
    }

    /// Why a lulld that starts commands itself as `daemon`, without the rights to become another
    /// uid and stop its processes, does not run `owner`'s command; and what to do instead.
    public static func cannotRun(as owner: OwnerID, daemon: OwnerID) -> String {
        "this lulld starts commands itself as uid \(daemon.rawValue), which can neither become uid \(owner.rawValue) nor stop its processes; the admin can run commands as systemd units ([run] host = \"systemd\"; docs/scheduling.md, \"Where commands run\"), or you can run a lulld of your own (systemctl --user start lulld)"
    }
}
