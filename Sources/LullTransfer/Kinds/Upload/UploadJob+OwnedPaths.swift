import LullCore

extension UploadJob: OwnedPaths {
    func pathProblem(owner: OwnerID) -> ValidationError? { FileAccess.sourceProblem(source) }
}
