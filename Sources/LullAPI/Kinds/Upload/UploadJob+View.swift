import LullCore

extension UploadJob {
    func describe(_ view: inout JobView) {
        view.url = url
        view.source = source
        view.method = method
        view.uploadProtocol = uploadProtocol
        view.chunkBytes = chunkBytes
        view.caFile = caFile
    }
}
