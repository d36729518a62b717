import LullAPI

/// `GET /v1/samples`.
extension ControlRouter {
    /// The sampler's history; asking counts as watching, so sampling runs at its busy interval
    /// for a while after each request.
    func samplesHistory(_ request: ControlRequest) async throws -> ControlResponse {
        try checkQuery(request, allowed: [])
        let history = await samples.samples()
        return .encode(
            .ok,
            SamplesView(intervalSeconds: await samples.interval.timeInterval, samples: history.map(SampleView.init))
        )
    }
}
