import HuddleFCM

/// FCM's condition language from arbitrary bytes: a condition read names one to five valid topics; with no `!`, it
/// is true for a device subscribed to all of them and false for one subscribed to none.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    guard let condition = try? TopicCondition(text) else { return 0 }
    let topics = condition.topics
    precondition((1...TopicCondition.maximumTopics).contains(topics.count))
    precondition(topics.allSatisfy(TopicCondition.isValidTopicName))
    precondition(condition.matches(subscribedTo: Set(topics)))
    precondition(!condition.matches(subscribedTo: []))
    return 0
}
