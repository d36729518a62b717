import LullCore

extension JobView {
    /// Fills in the kind's own fields. Where kinds are registered in views: a new kind adds its
    /// arm here.
    mutating func describe(_ payload: JobPayload) {
        switch payload {
        case .fetch(let job): job.describe(&self)
        case .push(let job): job.describe(&self)
        case .upload(let job): job.describe(&self)
        }
    }
}
