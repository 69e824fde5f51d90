/// A device setting that cannot be taken, with what is wrong and where (`summary.times: …`).
public struct SettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
