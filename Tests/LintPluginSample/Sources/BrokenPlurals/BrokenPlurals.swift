import Foundation

/// A target whose Russian catalog lacks forms that Russian needs: an error, which fails its build.
public enum BrokenPlurals {
    public static let resources = Bundle.module
}
