// The least a Swift client can do to submit a fetch: `lull-submit-floor URL DEST SOCKET` sends
// the same `POST /v1/jobs` as `lullctl submit fetch URL -o DEST --socket SOCKET` and prints the
// same line, with no argument parser, no Foundation and no validation. lull-bench times it beside
// lullctl and tsp, as the ceiling server stands beside lulld: the start of a Swift program plus one
// durable submission, a floor no Swift `lullctl` can go below on the same machine.

import SubmitFloor

let arguments = CommandLine.arguments
guard arguments.count == 4 else { fail("usage: lull-submit-floor URL DEST SOCKET") }
submitFetch(url: arguments[1], destination: arguments[2], socket: arguments[3])
