import Foundation
import LullAPI
import LullCore

/// Jobs of every kind with most optional fields set, as clients submit them: the inputs of the
/// wire goldens and of the stored-store fixture. Written as wire JSON, so they outlive any
/// change to the Swift types behind them.
enum GoldenJobs {
    /// In submission order: job ids 1 to 8 in a fresh store.
    static let submissions: [(name: String, json: String)] = [
        (
            "fetch-plain",
            #"{"kind":"fetch","url":"http://127.0.0.1:9/golden/plain.txt","destination":"/nonexistent/lull-golden/plain.txt"}"#
        ),
        ("fetch-resumable", fetchRich),
        ("fetch-periodic", fetchRich),
        (
            "push-text",
            #"""
            {"kind":"push","url":"https://hooks.example.test/notify","method":"put",
             "headers":{"Content-Language":"en","Idempotency-Key":"client-key-7"},
             "content_type":"text/plain; charset=utf-8","body":"hello \"world\"\nline 2 é",
             "label":"notify","class":"utility","retry":{"max_attempts":3},"timeouts":{"total_seconds":60},
             "network":"not_cellular","not_before":"2026-11-21T20:00:00.5Z","deadline":"2026-11-22T20:00:00Z",
             "on_deadline":"expire","on_complete_unit":"notify-done.service","ca_file":"/etc/ssl/hooks-ca.pem"}
            """#
        ),
        (
            "push-base64",
            #"""
            {"kind":"push","url":"https://hooks.example.test/bin","body_base64":"AAEC/f7/",
             "content_type":"application/octet-stream","idempotency_key":"fixed-key-1",
             "deadline":"2026-11-23T00:00:00Z","min_battery":50}
            """#
        ),
        (
            "upload-raw",
            #"""
            {"kind":"upload","url":"https://store.example.test/put/report.pdf","source":"/home/user/report.pdf",
             "method":"PUT","protocol":"raw","content_type":"application/pdf","headers":{"X-Upload":"1"},
             "label":"report","class":"maintenance","requires_ac":true,"expected_bytes_up":4096,
             "retry":{"base_seconds":1,"cap_seconds":30}}
            """#
        ),
        (
            "upload-multipart",
            #"""
            {"kind":"upload","url":"https://store.example.test/form","source":"/home/user/photo.jpg",
             "method":"POST","protocol":"multipart","form_field":"file","label":"photo","network":"unmetered"}
            """#
        ),
        (
            "upload-tus",
            #"""
            {"kind":"upload","url":"https://tus.example.test/files/","source":"/home/user/video.mkv","protocol":"tus",
             "chunk_bytes":1048576,"headers":{"Upload-Metadata":"filename dmlkZW8ubWt2"},"label":"video",
             "timeouts":{"idle_seconds":120},"deadline":"2026-12-01T00:00:00Z","on_deadline":"run"}
            """#
        ),
    ]

    static let fetchRich = #"""
        {"kind":"fetch","url":"https://files.example.test/data/archive.tar.gz?v=2&x=%20",
         "destination":"/srv/lull/archive.tar.gz","headers":{"Authorization":"Bearer t0k3n","X-Trace":"a\"b/c"},
         "label":"nightly archive","class":"background",
         "sha256":"ABCDEF0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789",
         "expected_bytes":1048576,"max_bytes":2097152,"mode":"0640",
         "retry":{"max_attempts":5,"base_seconds":2.5,"cap_seconds":600},
         "timeouts":{"connect_seconds":2,"idle_seconds":30.5,"total_seconds":3600},
         "network":"unmetered","requires_ac":true,"min_battery":20.5,"not_before":"2026-11-21T20:00:00Z",
         "periodic":{"every_seconds":3600,"flex_seconds":600,"jitter_seconds":60,"max_every_seconds":7200},
         "on_complete_unit":"backup-done.service","ca_file":"/etc/ssl/lab-ca.pem","expected_bytes_up":512}
        """#

    static let owner = OwnerID(1000)
    /// 2026-11-21T18:58:03.25Z: a fraction of a second, to hold how times are rounded.
    static let t0 = Date(timeIntervalSince1970: 1_795_287_483.25)

    static func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    /// The id of the periodic job's next occurrence, created when job 3 succeeds.
    static let successorID = JobID(9)
}
