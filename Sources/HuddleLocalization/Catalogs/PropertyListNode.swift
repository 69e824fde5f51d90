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
        /// The column of the `<key>` element; `nil` in binary property lists.
        var keyColumn: Int? = nil
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
        try CatalogLimits.checkSize(data.count, file: file)
        guard isSupportedBinaryPropertyList(data) else {
            throw CatalogError(file: file, message: "not a valid binary property list")
        }
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw CatalogError(file: file, message: "not a valid binary property list")
        }
        var entryCount = 0
        // Depth 1 for the top value, as in XML, where it sits inside <plist>.
        return try PropertyListNode(foundationObject: object, depth: 1, entryCount: &entryCount, file: file)
    }

    /// True when `data` is shaped like a binary property list Foundation can be trusted with: `bplist00`,
    /// a trailer whose object count, top object and offset table fit in the file, and only objects of the
    /// kinds localization files hold (strings, numbers, booleans, dates, data, arrays, dictionaries).
    ///
    /// Foundation on Linux leaks memory for every property list it fails to read, and crashes outright on
    /// some it can read (a set, `0xC…`, brings the process down while it is bridged to Swift), so nothing
    /// else reaches it. O(n) in the size of the file.
    static func isSupportedBinaryPropertyList(_ data: Data) -> Bool {
        let headerLength = 8
        let trailerLength = 32
        guard data.count >= headerLength + 1 + trailerLength, data.starts(with: Array("bplist00".utf8)) else { return false }
        let bytes = [UInt8](data)
        func integer(at offset: Int, size: Int) -> UInt64 {
            bytes[offset..<(offset + size)].reduce(0) { $0 << 8 | UInt64($1) }
        }
        let trailer = bytes.count - trailerLength
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        let objectCount = integer(at: trailer + 8, size: 8)
        let topObject = integer(at: trailer + 16, size: 8)
        let offsetTableStart = integer(at: trailer + 24, size: 8)
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), objectCount >= 1, topObject < objectCount,
            offsetTableStart >= UInt64(headerLength + 1), offsetTableStart < UInt64(trailer)
        else { return false }
        let (tableLength, overflow) = objectCount.multipliedReportingOverflow(by: UInt64(offsetSize))
        guard !overflow, tableLength <= UInt64(trailer) - offsetTableStart else { return false }
        // Every object a reference can reach is in the offset table; each must start between the header
        // and the table, with a marker of a supported kind.
        for index in 0..<Int(objectCount) {
            let offset = integer(at: Int(offsetTableStart) + index * offsetSize, size: offsetSize)
            guard offset >= UInt64(headerLength), offset < offsetTableStart else { return false }
            let marker = bytes[Int(offset)]
            switch marker >> 4 {
            case 0x0: guard [0x00, 0x08, 0x09].contains(marker) else { return false }  // null, false, true
            case 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0xA, 0xD: continue  // integer, real, date, data, strings, array, dictionary
            default: return false  // UIDs, sets and kinds bplist00 does not define
            }
        }
        return true
    }

    /// Converts what Foundation read, held to the limits XML property lists are held to (keys and values
    /// count as entries, as their elements do in XML).
    private init(foundationObject object: Any, depth: Int, entryCount: inout Int, file: String) throws(CatalogError) {
        guard depth < CatalogLimits.maximumDepth else {
            throw CatalogLimits.nestedTooDeeply(file: file, line: nil, column: nil, "values")
        }
        entryCount += 1
        guard entryCount <= CatalogLimits.maximumEntries else {
            throw CatalogLimits.tooManyEntries(file: file, line: nil, column: nil)
        }
        if let string = object as? String {
            value = .string(string)
        } else if let dictionary = object as? [String: Any] {
            // Foundation forgets the file's order; sorted keys at least make errors repeatable.
            var members: [Member] = []
            for key in dictionary.keys.sorted() {
                guard let member = dictionary[key] else { continue }
                entryCount += 1
                members.append(
                    Member(
                        key: key, keyLine: nil,
                        value: try PropertyListNode(foundationObject: member, depth: depth + 1, entryCount: &entryCount, file: file)))
            }
            value = .dictionary(members)
        } else if let array = object as? [Any] {
            var items: [PropertyListNode] = []
            for item in array {
                items.append(try PropertyListNode(foundationObject: item, depth: depth + 1, entryCount: &entryCount, file: file))
            }
            value = .array(items)
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
