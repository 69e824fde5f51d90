import Foundation

extension Date {
    /// Milliseconds since 1970, the unit the database stores (BIGINT), as the SQLite store does.
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
