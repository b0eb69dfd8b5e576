/// Modifier keys held with a key or mouse event.
public struct KeyModifiers: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let shift = KeyModifiers(rawValue: 1 << 0)
    public static let alt = KeyModifiers(rawValue: 1 << 1)
    public static let ctrl = KeyModifiers(rawValue: 1 << 2)
}

public enum KeyCode: Hashable, Sendable {
    /// a printable character; ctrl-letters arrive as the lower-case letter with `.ctrl`
    case character(Unicode.Scalar)
    case enter, tab, backtab, backspace, escape
    case up, down, left, right
    case home, end, pageUp, pageDown, insert, delete
    /// F1–F12
    case function(Int)
}

public struct KeyEvent: Hashable, Sendable {
    public var code: KeyCode
    public var modifiers: KeyModifiers

    public init(_ code: KeyCode, modifiers: KeyModifiers = []) {
        self.code = code
        self.modifiers = modifiers
    }
}

public enum MouseButton: Hashable, Sendable {
    case left, middle, right
}

public enum MouseAction: Hashable, Sendable {
    case press(MouseButton)
    case release(MouseButton)
    /// moved with the button held
    case drag(MouseButton)
    /// moved with no button held
    case moved
    case scrollUp, scrollDown, scrollLeft, scrollRight
}

public struct MouseEvent: Hashable, Sendable {
    public var action: MouseAction
    /// 0-based cell column
    public var x: Int
    /// 0-based cell row
    public var y: Int
    public var modifiers: KeyModifiers

    public init(_ action: MouseAction, x: Int, y: Int, modifiers: KeyModifiers = []) {
        self.action = action
        self.x = x
        self.y = y
        self.modifiers = modifiers
    }
}

public enum InputEvent: Hashable, Sendable {
    case key(KeyEvent)
    case mouse(MouseEvent)
}

/// The outcome of parsing the start of an input byte stream.
public enum ParseResult: Hashable, Sendable {
    /// the bytes are the start of a sequence; read more (or time out a lone ESC)
    case needMore
    /// an event, made of the first `consumed` bytes
    case event(InputEvent, consumed: Int)
    /// the first `consumed` bytes mean nothing this program uses; drop them
    case invalid(consumed: Int)
}
