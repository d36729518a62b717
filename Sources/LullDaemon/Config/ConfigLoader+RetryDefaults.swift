import Foundation
import LullCore
import LullTransfer
import TOMLKit

extension ConfigLoader {
    /// `[retry]` and the retry keys classes set themselves, over every file read so far. Applied
    /// once all files are read: a drop-in may define a class after the file holding `[retry]`.
    struct RetryDefaults {
        private struct Value<T> {
            var value: T
            var file: Int
        }

        /// The index of the file being read: later files override earlier ones.
        private var file = -1
        private var attempts: Value<Int>?
        private var base: Value<Double>?
        private var cap: Value<Double>?
        /// The last file that set each retry key of a class in its `[classes.NAME]` table.
        private var classKeys: [String: [JobClassPolicy.Setting: Int]] = [:]

        mutating func startFile() { file += 1 }

        mutating func setAttempts(_ value: Int) { attempts = Value(value: value, file: file) }
        mutating func setBase(_ value: Double) { base = Value(value: value, file: file) }
        mutating func setCap(_ value: Double) { cap = Value(value: value, file: file) }

        mutating func classSets(_ setting: JobClassPolicy.Setting, of name: String) {
            classKeys[name, default: [:]][setting] = file
        }

        /// A `[retry]` key wins over a class's own key set in an earlier file; the class's key
        /// wins when set in the same file as `[retry]` or a later one.
        func apply(to policy: inout SchedulingPolicy) {
            for index in policy.classes.indices {
                let set = classKeys[policy.classes[index].name] ?? [:]
                func applies<T>(_ value: Value<T>?, over setting: JobClassPolicy.Setting) -> T? {
                    guard let value else { return nil }
                    if let classFile = set[setting], classFile >= value.file { return nil }
                    return value.value
                }
                if let attempts = applies(attempts, over: .maxAttempts) {
                    policy.classes[index].retry.maxAttempts = attempts
                }
                if let base = applies(base, over: .backoffBase) { policy.classes[index].retry.backoffBase = base }
                if let cap = applies(cap, over: .backoffCap) { policy.classes[index].retry.backoffCap = cap }
            }
        }
    }
}
