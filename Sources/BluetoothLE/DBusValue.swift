/// A value read from a D-Bus message, as BlueZ's replies and signals carry
/// them. Integers of every width are widened; object paths and signatures read
/// as strings; an array of bytes (`ay`) is `.bytes`, a dictionary (`a{..}`)
/// `.dictionary` keyed by its keys' text.
public indirect enum DBusValue: Equatable, Sendable {
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)
    case bytes([UInt8])
    case array([DBusValue])
    case dictionary([String: DBusValue])
    case structure([DBusValue])
    case variant(DBusValue)

    /// the value inside any variants
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    public var string: String? {
        if case .string(let text) = unwrapped { return text }
        return nil
    }

    public var bool: Bool? {
        if case .bool(let value) = unwrapped { return value }
        return nil
    }

    public var integer: Int? {
        switch unwrapped {
        case .int(let value): Int(exactly: value)
        case .uint(let value): Int(exactly: value)
        default: nil
        }
    }

    public var bytes: [UInt8]? {
        switch unwrapped {
        case .bytes(let bytes): bytes
        case .array(let items) where items.isEmpty: []
        default: nil
        }
    }

    public var array: [DBusValue]? {
        switch unwrapped {
        case .array(let items): items
        case .bytes(let bytes): bytes.map { .uint(UInt64($0)) }
        case .dictionary(let entries) where entries.isEmpty: []
        default: nil
        }
    }

    public var dictionary: [String: DBusValue]? {
        switch unwrapped {
        case .dictionary(let entries): entries
        case .array(let items) where items.isEmpty: [:]
        default: nil
        }
    }

    /// an array of strings (`as`), e.g. a device's UUIDs
    public var strings: [String]? { array?.compactMap(\.string) }
}

/// An argument of a method call: what tscope sends BlueZ.
public enum DBusArgument: Sendable, Equatable {
    case string(String)
    case objectPath(String)
    case bytes([UInt8])
    /// an options dictionary `a{sv}` with string values
    case options([String: String])
    /// a variant holding a boolean (Properties.Set of a flag)
    case booleanVariant(Bool)
}
