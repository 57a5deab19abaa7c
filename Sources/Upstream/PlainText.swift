import Foundation

/// HTML as found in feed descriptions turned into plain text: tags dropped (with the contents
/// of `script`, `style` and comments), entities decoded, whitespace collapsed. Item text is
/// data; nothing here is ever rendered as markup.
public enum PlainText {
    /// The text of `html`, at most `limit` characters (cut at a character boundary).
    public static func from(html: String, limit: Int) -> String {
        var text = ""
        var index = html.startIndex
        let end = html.endIndex
        while index < end {
            let character = html[index]
            if character == "<" {
                let rest = html[index...]
                if rest.hasPrefix("<!--") {
                    index = rest.range(of: "-->")?.upperBound ?? end
                    continue
                }
                let lower = rest.prefix(8).lowercased()
                for element in ["script", "style"] where lower.hasPrefix("<" + element) {
                    index = rest.range(of: "</" + element, options: .caseInsensitive)?.upperBound ?? end
                }
                if let close = html[index...].firstIndex(of: ">") {
                    let tag = html[index..<close].lowercased()
                    if tag.hasPrefix("<br") || tag.hasPrefix("<p") || tag.hasPrefix("</p")
                        || tag.hasPrefix("<li")
                        || tag.hasPrefix("<div") || tag.hasPrefix("</div")
                    {
                        text.append(" ")
                    }
                    index = html.index(after: close)
                } else {
                    index = end
                }
                continue
            }
            if character == "&", let (decoded, next) = entity(in: html, at: index) {
                text.append(decoded)
                index = next
                continue
            }
            text.append(character)
            index = html.index(after: index)
        }
        return collapse(text, limit: limit)
    }

    /// `text` with runs of whitespace made one space, trimmed, cut to `limit` characters.
    public static func collapse(_ text: String, limit: Int) -> String {
        var result = ""
        var pendingSpace = false
        var count = 0
        for character in text {
            if character.isWhitespace
                || character.unicodeScalars.allSatisfy({ $0.value < 32 || $0.value == 127 })
            {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace {
                guard count + 1 < limit else { break }
                result.append(" ")
                count += 1
                pendingSpace = false
            }
            guard count < limit else { break }
            result.append(character)
            count += 1
        }
        return result
    }

    private static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "hellip": "…",
        "mdash": "—", "ndash": "–", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”", "copy": "©",
        "reg": "®", "trade": "™", "eacute": "é", "egrave": "è", "uuml": "ü", "ouml": "ö", "auml": "ä",
        "szlig": "ß", "ccedil": "ç", "euro": "€", "middot": "·", "bull": "•", "laquo": "«", "raquo": "»",
    ]

    /// The entity at `index` (`&amp;`, `&#39;`, `&#x27;`) and the index after it.
    private static func entity(in html: String, at index: String.Index) -> (String, String.Index)? {
        let rest = html[html.index(after: index)...].prefix(12)
        guard let semicolon = rest.firstIndex(of: ";") else { return nil }
        let name = rest[..<semicolon]
        let next = html.index(after: semicolon)
        if name.hasPrefix("#") {
            let digits = name.dropFirst()
            let value: UInt32?
            if digits.first == "x" || digits.first == "X" {
                value = UInt32(digits.dropFirst(), radix: 16)
            } else {
                value = UInt32(digits, radix: 10)
            }
            guard let value, let scalar = Unicode.Scalar(value), value != 0 else { return nil }
            return (String(Character(scalar)), next)
        }
        guard let decoded = named[String(name)] else { return nil }
        return (decoded, next)
    }
}
