public import HuddleLocalization

/// Finds where values sit in JSON text, so that a message about `aps.thread_id` can point at its line and
/// column.
///
/// ``JSONParser`` keeps no positions: counting lines as it parsed would cost time on every document, and
/// only documents with something to report need them. A locator scans the text once for all the paths it
/// is asked about, skipping every subtree that none of them enters, then counts lines once for all the
/// positions found: O(n) in the length of the text, however many paths.
public struct JSONLocator: Sendable {
    /// One step of a key path: an object member or an array element.
    public enum PathComponent: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    private let bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Where each path is written (1-based line and column, columns in Unicode scalars): the member's key
    /// for a path ending in a key, the element for one ending in an index, the document for the empty
    /// path. A path that is not in the text gets the location of its longest prefix that is, so that a
    /// message still points near the problem.
    /// - Returns: a location for every path, in the order asked; `nil` only for text that has no value.
    public func locate(_ paths: [[PathComponent]]) -> [SourceLocation?] {
        var trie = PathTrie()
        let leaves = paths.map { trie.insert($0) }
        var walker = Walker(bytes: bytes, trie: trie)
        walker.walkDocument()
        trie = walker.trie
        let offsets = leaves.map { trie.deepestOffset(from: $0) }
        let locations = Self.locations(of: offsets.compactMap { $0 }, in: bytes)
        return offsets.map { $0.flatMap { locations[$0] } }
    }

    /// The location of one path (see ``locate(_:)``).
    public func locate(_ path: [PathComponent]) -> SourceLocation? {
        locate([path])[0]
    }

    /// Splits a key path as ``JSONReader`` writes them (`aps.alert.loc-args[1]`, `events[3].deliver`).
    ///
    /// A key may itself hold `.` or `[`, as bundle identifiers do (`apps.com.example.chat.categories`).
    /// Given the document the path was read from, each key is the longest member name of the object there
    /// that the path goes on with; without it, or where no name fits, a key ends at the next `.` or `[`
    /// (the locator then finds the longest prefix of the path).
    /// - Complexity: O(n) in the length of the path and the member names of the objects it goes through.
    public static func components(of path: String, in document: JSONValue? = nil) -> [PathComponent] {
        let bytes = Array(path.utf8)
        let dot = UInt8(ascii: "."), open = UInt8(ascii: "["), close = UInt8(ascii: "]")
        var components: [PathComponent] = []
        var value = document
        var index = 0
        while index < bytes.count {
            if bytes[index] == dot {
                index += 1
                continue
            }
            if bytes[index] == open, let end = bytes[index...].firstIndex(of: close),
                let element = Int(String(decoding: bytes[(index + 1)..<end], as: UTF8.self))
            {
                components.append(.index(element))
                value = value?.arrayValue.flatMap { $0.indices.contains(element) ? $0[element] : nil }
                index = end + 1
                continue
            }
            let rest = bytes[index...]
            var length = (bytes[(index + 1)...].firstIndex { $0 == dot || $0 == open } ?? bytes.count) - index
            if case .object(let object)? = value {
                for name in object.members.lazy.map(\.key.utf8) where name.count > length && rest.starts(with: name) {
                    let end = index + name.count
                    if end == bytes.count || bytes[end] == dot || bytes[end] == open { length = name.count }
                }
            }
            let key = String(decoding: rest.prefix(length), as: UTF8.self)
            components.append(.key(key))
            value = value?[key]
            index += length
        }
        return components
    }

    /// Line and column of each offset, in one pass over the text.
    private static func locations(of offsets: [Int], in bytes: [UInt8]) -> [Int: SourceLocation] {
        var result: [Int: SourceLocation] = [:]
        let sorted = Set(offsets).sorted()
        var line = 1
        var column = 1
        var index = 0
        for offset in sorted {
            while index < offset, index < bytes.count {
                let byte = bytes[index]
                if byte == 0x0A {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    // Only a scalar's first byte counts, so a column is in Unicode scalars.
                    column += 1
                }
                index += 1
            }
            result[offset] = SourceLocation(line: line, column: column)
        }
        return result
    }
}

/// The requested paths as a tree, each node holding the offset where the scan found it.
private struct PathTrie {
    struct Node {
        var children: [JSONLocator.PathComponent: Int] = [:]
        var parent: Int?
        var offset: Int?
    }

    var nodes = [Node()]

    /// Adds a path; returns its last node.
    mutating func insert(_ path: [JSONLocator.PathComponent]) -> Int {
        var current = 0
        for component in path {
            if let next = nodes[current].children[component] {
                current = next
            } else {
                nodes.append(Node(parent: current))
                nodes[current].children[component] = nodes.count - 1
                current = nodes.count - 1
            }
        }
        return current
    }

    /// The offset of the node, or of its nearest ancestor that was found.
    func deepestOffset(from node: Int) -> Int? {
        var current: Int? = node
        while let index = current {
            if let offset = nodes[index].offset { return offset }
            current = nodes[index].parent
        }
        return nil
    }
}

/// Scans JSON text, descending only into values some path goes through. The text was parsed before, so
/// it is valid; should it not be, the scan stops where it is lost and keeps what it found.
private struct Walker {
    let bytes: [UInt8]
    var trie: PathTrie
    var index = 0

    init(bytes: [UInt8], trie: PathTrie) {
        self.bytes = bytes
        self.trie = trie
    }

    mutating func walkDocument() {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        skipWhitespace()
        guard index < bytes.count else { return }
        trie.nodes[0].offset = index
        walkValue(node: 0, depth: 0)
    }

    /// Walks the value at `index`, which the path node `node` stands for.
    private mutating func walkValue(node: Int, depth: Int) {
        guard depth <= JSONParser.maximumDepth, !trie.nodes[node].children.isEmpty, index < bytes.count else {
            skipValue()
            return
        }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1 }
                    return
                }
                let keyStart = index
                guard let key = readString() else { return }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return }
                index += 1
                skipWhitespace()
                if let child = trie.nodes[node].children[.key(key)] {
                    trie.nodes[child].offset = keyStart
                    walkValue(node: child, depth: depth + 1)
                } else {
                    skipValue()
                }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else {
                    if index < bytes.count { index += 1 }
                    return
                }
                index += 1
            }
        case UInt8(ascii: "["):
            index += 1
            var element = 0
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] != UInt8(ascii: "]") else {
                    index += 1
                    return
                }
                if let child = trie.nodes[node].children[.index(element)] {
                    trie.nodes[child].offset = index
                    walkValue(node: child, depth: depth + 1)
                } else {
                    skipValue()
                }
                element += 1
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else {
                    if index < bytes.count { index += 1 }
                    return
                }
                index += 1
            }
        default:
            skipValue()
        }
    }

    /// Moves past one value without building it.
    private mutating func skipValue() {
        var depth = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                skipString()
                if depth == 0 { return }
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return }
                depth -= 1
                if depth == 0 {
                    index += 1
                    return
                }
            case UInt8(ascii: ","):
                if depth == 0 { return }
            default:
                break
            }
            index += 1
        }
    }

    /// Reads a member name (the scan needs it to follow a path).
    private mutating func readString() -> String? {
        let start = index
        skipString()
        guard index <= bytes.count, index - start >= 2 else { return nil }
        let inner = bytes[(start + 1)..<(index - 1)]
        // Names without escapes are the rule; an escaped one is decoded by the real parser.
        if !inner.contains(UInt8(ascii: "\\")) { return String(decoding: inner, as: UTF8.self) }
        if case .string(let decoded)? = try? JSONParser.parse(bytes[start..<index]) { return decoded }
        return nil
    }

    private mutating func skipString() {
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""):
                index += 1
                return
            default: index += 1
            }
        }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }
}
