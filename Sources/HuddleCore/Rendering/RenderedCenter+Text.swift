/// The rendered center as a terminal picture: each stack as a card, the cards peeking under it, and the
/// summary line below, as the lock screen shows them.
extension RenderedCenter {
    /// The picture, its own words (the header, each stack's count) in the viewer's language as the pages
    /// write theirs, the counts in that language's plural forms ("3 уведомления", "5 уведомлений").
    /// - Parameters:
    ///   - width: the card width in columns (at least 30).
    ///   - colors: ANSI colours and weights, for a terminal; plain text otherwise.
    public func text(width: Int = 64, colors: Bool = false) -> String {
        let style = TerminalStyle(enabled: colors)
        let width = max(width, 30)
        let words = PageWords.forViewer(languages: languages).words
        var resolver = TextResolver(viewer: Viewer(languages: languages, locked: locked))
        var lines: [String] = []
        var header = "\(words.notificationCenter) · \(languages.joined(separator: ", "))" + (locked ? " · \(words.lockedCenter)" : "")
        if let focus = device?.focus, focus.isActive { header += " · ◐ \(focus.name)" }
        lines.append(style.bold(header))
        if let summary = device?.summary {
            lines.append("")
            lines.append(contentsOf: summary.textLines(width: width, style: style, countText: resolver.countText(summary.count), groups: groups))
        }
        // A locked device with its settings in play shows what its Lock Screen layout shows.
        var shown = groups
        if let lockScreen = device?.lockScreen {
            shown = groups.filter { lockScreen.cards.contains($0.id) }
            if lockScreen.layout == .count {
                lines.append("")
                lines.append(style.bold("  \(resolver.placeholderText(lockScreen.notificationCount))"))
            }
        }
        if groups.isEmpty {
            lines.append(style.dim("  \(words.noNotifications)"))
        }
        for group in shown {
            lines.append("")
            lines.append(contentsOf: group.textLines(width: width, style: style, countText: resolver.countText(group.count)))
        }
        if let lockScreen = device?.lockScreen, lockScreen.layout == .stack, lockScreen.behind > 0 {
            lines.append(style.dim("  + \(lockScreen.behind) " + (lockScreen.behind == 1 ? "stack" : "stacks") + " behind (Stack layout)"))
        }
        if let held = device?.held, !held.isEmpty {
            lines.append("")
            lines.append(style.dim("Held for the scheduled summary:"))
            for notification in held {
                lines.append(style.dim("  \(notification.app) › \(notification.identifier) until \(ISO8601.string(from: notification.until))"))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension RenderedDevice.Summary {
    /// The summary's card: its title and count, the featured notifications (their titles, as far as previews
    /// show them and they are still in the center), then each app with how many it brought.
    fileprivate func textLines(width: Int, style: TerminalStyle, countText: String, groups: [RenderedGroup]) -> [String] {
        var lines = [style.bold(title) + String(repeating: " ", count: max(1, width - DisplayWidth.of(title) - DisplayWidth.of(countText))) + style.dim(countText)]
        lines.append("╭" + String(repeating: "─", count: width - 2) + "╮")
        let inner = width - 4
        func appName(_ app: String) -> String { groups.first { $0.app == app }?.appName ?? app }
        var body = featured.map { featured in
            let shown = groups.lazy.filter { $0.app == featured.app }.flatMap(\.notifications).first { $0.id == featured.identifier }
            let text = [shown?.title, shown?.body].compactMap { $0 }.joined(separator: ": ")
            return "★ \(appName(featured.app))" + (text.isEmpty ? "" : " · \(text)")
        }
        body += apps.map { "\(appName($0.app)): \($0.identifiers.count)" }
        for line in body.flatMap({ DisplayWidth.wrap($0, width: inner) }) {
            lines.append("│ " + line + String(repeating: " ", count: max(0, inner - DisplayWidth.of(line))) + " │")
        }
        lines.append("╰" + String(repeating: "─", count: width - 2) + "╯")
        return lines
    }
}

extension TextResolver {
    /// "3 notifications" in the viewer's language and plural form, with the number as their locale writes it.
    mutating func countText(_ count: Int) -> String {
        guard let format = defaultFormat(HuddleStrings.count, role: .placeholder, count: count) else { return String(count) }
        return render(format, count: count, arguments: [])
    }

    /// "3 Notifications", as the Lock Screen's Count layout and Apple's placeholder write it.
    mutating func placeholderText(_ count: Int) -> String {
        guard let format = defaultFormat(HuddleStrings.placeholder, role: .placeholder, count: count) else { return String(count) }
        return render(format, count: count, arguments: [])
    }
}

extension RenderedGroup {
    fileprivate func textLines(width: Int, style: TerminalStyle, countText: String) -> [String] {
        var lines: [String] = []
        let inner = width - 4
        var heading = style.bold(app)
        if let thread { heading += style.dim(" › ") + thread }
        let headingWidth = DisplayWidth.of(app) + (thread.map { 3 + DisplayWidth.of($0) } ?? 0)
        lines.append(
            heading + String(repeating: " ", count: max(1, width - headingWidth - DisplayWidth.of(countText))) + style.dim(countText))

        lines.append("╭" + String(repeating: "─", count: width - 2) + "╮")
        var body: [String] = []
        if let leading = notifications.first {
            let time = Self.timeText(leading)
            // Without a title the subtitle takes the first line, whether previews are shown or hidden
            // (hiddenPreviewsShowSubtitle keeps it on a locked device while the title is hidden).
            let title = leading.title ?? leading.subtitle
            let titleText = title.map { DisplayWidth.truncate($0, to: inner - time.count - 1) } ?? ""
            let padding = max(1, inner - DisplayWidth.of(titleText) - time.count)
            body.append(style.bold(titleText) + String(repeating: " ", count: padding) + style.dim(time))
            if let subtitle = leading.subtitle, leading.title != nil {
                body.append(contentsOf: DisplayWidth.wrap(subtitle, width: inner).map { style.bold($0) })
            }
            if previewsHidden {
                if let hiddenPreviewsText {
                    body.append(contentsOf: DisplayWidth.wrap(hiddenPreviewsText, width: inner).map { style.hidden($0) })
                }
            } else if let text = leading.body {
                body.append(contentsOf: DisplayWidth.wrap(text, width: inner).prefix(4))
            }
            if let focus = leading.silencedBy { body.append(style.dim("◐ silenced by \(focus)")) }
        }
        for line in body {
            lines.append("│ " + line + String(repeating: " ", count: max(0, inner - DisplayWidth.of(style.strip(line)))) + " │")
        }
        // One or two cards peek out under the leading one, as on iOS.
        switch count {
        case 1:
            lines.append("╰" + String(repeating: "─", count: width - 2) + "╯")
        case 2:
            lines.append("╰┬" + String(repeating: "─", count: width - 4) + "┬╯")
            lines.append(" ╰" + String(repeating: "─", count: width - 4) + "╯")
        default:
            lines.append("╰┬" + String(repeating: "─", count: width - 4) + "┬╯")
            lines.append(" ╰┬" + String(repeating: "─", count: width - 6) + "┬╯")
            lines.append("  ╰" + String(repeating: "─", count: width - 6) + "╯")
        }
        if let summary {
            lines.append(contentsOf: DisplayWidth.wrap(summary, width: width - 2).map { "  " + style.summary($0) })
        }
        return lines
    }

    private static func timeText(_ notification: RenderedNotification) -> String {
        // The rendered date is UTC; show its clock time, which is what a stack shows for today.
        let text = ISO8601.string(from: notification.date)
        let time = text.dropFirst(11).prefix(5)
        return String(time)
    }
}

/// ANSI styling that can be switched off, for pipes and files.
private struct TerminalStyle {
    let enabled: Bool

    func bold(_ text: String) -> String { wrap(text, "1") }
    func dim(_ text: String) -> String { wrap(text, "2") }
    func summary(_ text: String) -> String { wrap(text, "3;36") }
    func hidden(_ text: String) -> String { wrap(text, "33") }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// The text without escape sequences, to measure it.
    func strip(_ text: String) -> String {
        guard enabled else { return text }
        var result = ""
        var inEscape = false
        for scalar in text.unicodeScalars {
            if scalar == "\u{1B}" { inEscape = true; continue }
            if inEscape { if scalar == "m" { inEscape = false }; continue }
            result.unicodeScalars.append(scalar)
        }
        return result
    }
}

/// Terminal column widths: East Asian wide characters and most emoji take two columns.
enum DisplayWidth {
    static func of(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + width(of: $1) }
    }

    static func width(of scalar: Unicode.Scalar) -> Int {
        switch scalar.value {
        case 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F: 0
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            2
        default: 1
        }
    }

    static func truncate(_ text: String, to columns: Int) -> String {
        guard of(text) > columns else { return text }
        var result = ""
        var used = 0
        for character in text {
            let characterWidth = of(String(character))
            if used + characterWidth > columns - 1 { break }
            result.append(character)
            used += characterWidth
        }
        return result + "…"
    }

    /// Splits text into lines of at most `width` columns, at spaces where it can.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                let candidate = line.isEmpty ? String(word) : line + " " + word
                if of(candidate) <= width {
                    line = candidate
                    continue
                }
                if !line.isEmpty { lines.append(line) }
                var rest = String(word)
                while of(rest) > width {
                    let head = truncate(rest, to: width + 1).dropLast()
                    lines.append(String(head))
                    rest.removeFirst(head.count)
                }
                line = rest
            }
            lines.append(line)
        }
        return lines
    }
}
