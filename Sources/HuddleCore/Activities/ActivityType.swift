/// An activity type an app declares: its `ActivityAttributes` type's name, as pushes name it in
/// `attributes-type`, and optionally the keys of its attributes and content state and a template to draw
/// it with.
///
/// Without declared keys any JSON object is taken as attributes or content state (Huddle cannot check
/// what it is not told); with them, payloads are decoded as ActivityKit would decode them.
public struct ActivityType: Sendable, Hashable {
    /// The longest type name, in bytes.
    public static let maximumNameLength = 256
    /// The largest template, in bytes: a template is drawn for every activity on every page.
    public static let maximumTemplateSize = 8192

    /// The Swift type's name (`DeliveryAttributes`), matched exactly against `attributes-type`.
    public let name: String
    public let attributes: ActivitySchema?
    public let contentState: ActivitySchema?
    /// Text the page draws the activity with; its syntax belongs to the page, the engine only bounds it.
    public let template: String?
    /// The template, parsed once when the type is declared: it draws every card of the type, on every page and stream.
    public let parsedTemplate: ActivityTemplate?

    /// - Throws: ``ActivityError`` for an empty or too long name, or a template over
    ///   ``maximumTemplateSize``.
    public init(name: String, attributes: ActivitySchema? = nil, contentState: ActivitySchema? = nil, template: String? = nil) throws(ActivityError) {
        guard !name.isEmpty, name.utf8.count <= Self.maximumNameLength else {
            throw ActivityError(.invalidValue, "an activity type's name must have 1 to \(Self.maximumNameLength) bytes", path: "name")
        }
        if let template, template.utf8.count > Self.maximumTemplateSize {
            throw ActivityError(.tooLarge, "the template is \(template.utf8.count) bytes, more than the \(Self.maximumTemplateSize) allowed", path: "template")
        }
        self.name = name
        self.attributes = attributes
        self.contentState = contentState
        self.template = template
        parsedTemplate = template.flatMap { $0.isEmpty ? nil : ActivityTemplate($0) }
    }

    /// Reads `{"name": …, "attributes": {…}, "contentState": {…}, "template": "…"}`, the schemas in
    /// ``ActivitySchema``'s notation.
    /// - Parameter json: the declaration; its path is the one errors name (`types[0].contentState.eta`).
    public init(json reader: JSONReader) throws(ActivityError) {
        self = try ActivityError.reading {
            try reader.rejectUnknownMembers(["name", "attributes", "contentState", "template"])
            let name = try reader.member("name").string()
            let attributes = try reader.optionalMember("attributes")
            let contentState = try reader.optionalMember("contentState")
            let template = try reader.optionalMember("template")?.string()
            let schemas = (
                attributes: try attributes.map { reader throws(ActivityError) in try ActivitySchema(json: reader.value, path: reader.path) },
                contentState: try contentState.map { reader throws(ActivityError) in try ActivitySchema(json: reader.value, path: reader.path) })
            do throws(ActivityError) {
                return try ActivityType(name: name, attributes: schemas.attributes, contentState: schemas.contentState, template: template)
            } catch {
                // The bounds of a name and a template are checked by the memberwise initializer, which names
                // the member alone.
                throw error.under(reader.path)
            }
        }
    }

    /// The declaration in the form ``init(json:)`` reads.
    public var json: JSONValue {
        var object = JSONObject([(key: "name", value: .string(name))])
        object["attributes"] = attributes?.json
        object["contentState"] = contentState?.json
        object["template"] = template.map(JSONValue.string)
        return .object(object)
    }
}

/// What an app declares about its Live Activities: its types, and whether its Info.plist sets
/// `NSSupportsLiveActivitiesFrequentUpdates` (a larger priority-10 budget).
public struct ActivityDeclarations: Sendable, Hashable {
    /// Types one app may declare: push-to-start tokens are one per type, and each is held per device.
    public static let maximumTypes = 32

    public private(set) var types: [ActivityType]
    public var supportsFrequentUpdates: Bool

    /// An app that declares nothing: any `attributes-type` is taken, unchecked.
    public init() {
        types = []
        supportsFrequentUpdates = false
    }

    /// - Throws: ``ActivityError`` for more than ``maximumTypes`` types or two with one name.
    public init(types: [ActivityType] = [], supportsFrequentUpdates: Bool = false) throws(ActivityError) {
        guard types.count <= Self.maximumTypes else {
            throw ActivityError(.tooLarge, "\(types.count) activity types, more than the \(Self.maximumTypes) allowed")
        }
        var names: Set<String> = []
        for type in types where !names.insert(type.name).inserted {
            throw ActivityError(.invalidValue, "the activity type \(type.name) is declared twice")
        }
        self.types = types
        self.supportsFrequentUpdates = supportsFrequentUpdates
    }

    /// The type named exactly `name` (Swift type names are case-sensitive).
    public func type(named name: String) -> ActivityType? {
        types.first { $0.name == name }
    }
}
