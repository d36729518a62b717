/// Runs the work it is given one piece at a time, in the order given. An actor alone does not:
/// it lets another call in at each `await`, so two reloads could interleave their swaps and
/// leave the policy of one beside the limits of the other.
actor OneAtATime<Value: Sendable> {
    private var last: Task<Value, Never>?

    func run(_ work: @escaping @Sendable () async -> Value) async -> Value {
        let previous = last
        let task = Task {
            _ = await previous?.value
            return await work()
        }
        last = task
        return await task.value
    }
}
