import Foundation

/// The sample's code hardly matters: the target is here for its resources, which the build plugin lints.
public enum Greetings {
    /// The bundle that holds the catalogs and the push payload the plugin checks.
    public static let resources = Bundle.module
}
