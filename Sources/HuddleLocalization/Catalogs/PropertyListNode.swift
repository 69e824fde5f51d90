import Foundation

/// A property list value with the place it was written, as the `.strings` and `.stringsdict` readers
/// need it: dictionaries keep their order and the line of each key, so errors can point at them.
struct PropertyListNode {
    enum Value {
        case dictionary([Member])
        case array([PropertyListNode])
        case string(String)
        /// A value the readers never use (`<integer>`, `<true/>`, `<data>`…), by its element name.
        case other(String)

        /// For errors: "a dictionary", "<integer>".
        var kindDescription: String {
            switch self {
            case .dictionary: "a dictionary"
            case .array: "an array"
            case .string: "a string"
            case .other(let name): "<\(name)>"
            }
        }
    }

    /// One key and its value in a dictionary.
    struct Member {
        var key: String
        /// The line of the `<key>` element; `nil` in binary property lists.
        var keyLine: Int?
        var value: PropertyListNode
    }

    var value: Value
    /// Where the value's element starts; `nil` in binary property lists, which have no lines.
    var line: Int?
    var column: Int?

    /// Reads an XML or binary property list.
    static func read(_ data: Data, file: String) throws(CatalogError) -> PropertyListNode {
        if isBinaryPropertyList(data) { return try readBinary(data, file: file) }
        return try PropertyListXMLReader.read(scalars: CatalogTextDecoder.decode(data, file: file), file: file)
    }

    static func isBinaryPropertyList(_ data: Data) -> Bool {
        data.starts(with: Array("bplist".utf8))
    }

    /// Reads a binary property list through Foundation, which has no positions to give.
    static func readBinary(_ data: Data, file: String) throws(CatalogError) -> PropertyListNode {
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw CatalogError(file: file, message: "not a valid binary property list")
        }
        return PropertyListNode(foundationObject: object)
    }

    private init(foundationObject object: Any) {
        if let string = object as? String {
            value = .string(string)
        } else if let dictionary = object as? [String: Any] {
            // Foundation forgets the file's order; sorted keys at least make errors repeatable.
            value = .dictionary(
                dictionary.keys.sorted().compactMap { key in
                    dictionary[key].map { Member(key: key, keyLine: nil, value: PropertyListNode(foundationObject: $0)) }
                })
        } else if let array = object as? [Any] {
            value = .array(array.map(PropertyListNode.init(foundationObject:)))
        } else {
            value = .other(String(describing: type(of: object)))
        }
    }

    init(value: Value, line: Int?, column: Int?) {
        self.value = value
        self.line = line
        self.column = column
    }
}
