import LullCore

extension ControlRouter {
    /// The `owner` query parameter of `GET /v1/jobs`: a uid whose jobs are listed. Root may name
    /// any uid (and without it sees every owner); anyone else only their own uid, since other
    /// owners' jobs are hidden from them everywhere else too (a 403 says so rather than an
    /// empty list, which would read as "that user has no jobs").
    static func listedOwner(_ raw: String?, peer: PeerCredentials) throws -> OwnerID? {
        guard let raw else { return peer.isAdmin ? nil : peer.owner }
        guard !raw.isEmpty, raw.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let uid = UInt32(raw)
        else {
            throw ValidationError(
                .invalidValue,
                field: "owner",
                "owner \"\(raw)\" is not a uid; give a number (lullctl list --owner also takes a user name)"
            )
        }
        guard peer.isAdmin || uid == peer.uid else {
            throw APIError(
                .forbidden,
                code: "forbidden",
                "only root may list another user's jobs (owner \(uid)); leave owner out, or give your own uid \(peer.uid)",
                field: "owner"
            )
        }
        return OwnerID(uid)
    }
}
