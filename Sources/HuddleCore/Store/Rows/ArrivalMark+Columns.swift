extension ArrivalMark {
    /// The Focus named by a stored row's `silenced_by` column, or the held flag: how every store writes a mark in
    /// two columns (`held`: 1 or NULL, `silenced_by`: the Focus's name or NULL), so that a held row is found by an
    /// index on `held` alone.
    public init(held: Bool, silencedBy focus: String?) {
        if held {
            self = .held
        } else if let focus {
            self = .silenced(focus: focus)
        } else {
            self = .shown
        }
    }

    /// The `held` column: 1, or NULL.
    public var heldColumn: Int64? {
        self == .held ? 1 : nil
    }

    /// The `silenced_by` column: the Focus's name, or NULL.
    public var silencedByColumn: String? {
        if case .silenced(let focus) = self { focus } else { nil }
    }
}

