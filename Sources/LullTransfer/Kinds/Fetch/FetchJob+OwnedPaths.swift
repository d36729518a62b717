import LullCore

extension FetchJob: OwnedPaths {
    func pathProblem(owner: OwnerID) -> ValidationError? { FileAccess.destinationProblem(destination, owner: owner) }
}
