import Foundation
import LullCore
import LullTransfer
import TOMLKit

// Typed values of the config, each checked against its range with an error naming the key.

extension ConfigLoader.Reader {
    mutating func flag(_ value: any TOMLValueConvertible, _ section: String, _ key: String) -> Bool? {
        guard let flag = value.bool else {
            problem(section: section, key: key, "expected true or false")
            return nil
        }
        return flag
    }

    mutating func percent(_ value: any TOMLValueConvertible, _ section: String, _ key: String) -> Double? {
        seconds(value, section, key, 0...100, unit: "percent")
    }

    /// A duration in seconds, integer or float.
    mutating func seconds(
        _ value: any TOMLValueConvertible,
        _ section: String,
        _ key: String,
        _ range: ClosedRange<Double>,
        unit: String = "seconds"
    ) -> Double? {
        guard let number = value.double ?? value.int.map(Double.init) else {
            problem(section: section, key: key, "expected a number (\(unit))")
            return nil
        }
        guard range.contains(number) else {
            problem(
                section: section,
                key: key,
                "\(number) is out of range \(range.lowerBound)...\(range.upperBound) \(unit)"
            )
            return nil
        }
        return number
    }

    mutating func integer(
        _ value: any TOMLValueConvertible,
        _ section: String,
        _ key: String,
        _ range: ClosedRange<Int>
    ) -> Int? {
        guard let number = value.int else {
            problem(section: section, key: key, "expected an integer")
            return nil
        }
        guard range.contains(number) else {
            problem(
                section: section,
                key: key,
                "\(number) is out of range \(range.lowerBound)...\(range.upperBound)"
            )
            return nil
        }
        return number
    }

    mutating func absolutePath(
        _ value: any TOMLValueConvertible,
        _ section: String,
        _ key: String
    ) -> String? {
        guard let path = value.string, path.hasPrefix("/") else {
            problem(section: section, key: key, "expected an absolute path string")
            return nil
        }
        return path
    }
}
