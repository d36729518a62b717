/// Lull's version, in the one place every part that states it reads it from: `lulld
/// --version`, `GET /v1/status` (through `LullDefaults.version`) and the `User-Agent` of every
/// transfer request, which LullTransfer sends without depending on LullAPI.
public enum LullVersion {
    public static let current = "0.1.0"
}
