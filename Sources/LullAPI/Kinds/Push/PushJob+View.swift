import LullCore

extension PushJob {
    func describe(_ view: inout JobView) {
        view.url = url
        view.method = method
        view.caFile = caFile
    }
}
