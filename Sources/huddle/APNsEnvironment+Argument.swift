public import ArgumentParser
import HuddleCore

/// `--environment development|production`: ArgumentParser reads the name and lists both when it is wrong.
extension APNsEnvironment: ExpressibleByArgument {}
