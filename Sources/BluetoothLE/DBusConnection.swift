import CDBus
import Foundation

/// An error reply or a failure of the bus itself: the D-Bus error name
/// (`org.bluez.Error.Failed`, `org.freedesktop.DBus.Error.ServiceUnknown`) and its message.
public struct DBusFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public var name: String
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { message.isEmpty ? name : "\(name): \(message)" }
}

/// A signal as it arrived: who sent it, on which object, and its arguments.
public struct DBusSignal: Equatable, Sendable {
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]
}

/// One private connection to a message bus through libdbus-1, used by one
/// thread: method calls wait for their reply with a timeout; signals that
/// arrive meanwhile are kept by libdbus and handed out by `nextSignal`.
/// Nothing here waits without a deadline.
public final class DBusConnection {
    private let connection: OpaquePointer
    /// the bus address connected to (for messages)
    public let address: String

    /// The default system bus socket, when `DBUS_SYSTEM_BUS_ADDRESS` is not set.
    public static let defaultSystemBusAddress = "unix:path=/var/run/dbus/system_bus_socket"

    /// The system bus: the one `DBUS_SYSTEM_BUS_ADDRESS` names when it is set (as
    /// every D-Bus client does), else the default socket.
    public static func systemBus(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> DBusConnection {
        let address = environment["DBUS_SYSTEM_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultSystemBusAddress
        return try DBusConnection(address: address)
    }

    /// Connects to the bus at `address` and registers with it (Hello).
    public init(address: String) throws {
        self.address = address
        var error = DBusError()
        dbus_error_init(&error)
        guard let opened = dbus_connection_open_private(address, &error) else {
            defer { dbus_error_free(&error) }
            throw Self.failure(&error, fallback: "cannot connect")
        }
        dbus_connection_set_exit_on_disconnect(opened, 0)
        guard dbus_bus_register(opened, &error) != 0 else {
            defer { dbus_error_free(&error) }
            dbus_connection_close(opened)
            dbus_connection_unref(opened)
            throw Self.failure(&error, fallback: "the bus refused the connection")
        }
        connection = opened
    }

    deinit {
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    /// whether the bus is still connected
    public var isConnected: Bool { dbus_connection_get_is_connected(connection) != 0 }

    /// Asks the bus to route signals matching `rule` to this connection.
    public func addMatch(_ rule: String) throws {
        var error = DBusError()
        dbus_error_init(&error)
        dbus_bus_add_match(connection, rule, &error)
        if dbus_error_is_set(&error) != 0 {
            defer { dbus_error_free(&error) }
            throw Self.failure(&error, fallback: "cannot add match rule")
        }
    }

    /// Calls `method` and waits at most `timeout` seconds for its reply.
    /// - Returns: the reply's arguments
    /// - Throws: `DBusFailure` with the error reply's name, or a timeout's
    @discardableResult
    public func call(destination: String, path: String, interface: String, method: String,
                     arguments: [DBusArgument] = [], timeout: Double = 25) throws -> [DBusValue] {
        guard let message = dbus_message_new_method_call(destination, path, interface, method) else {
            throw DBusFailure(name: "org.freedesktop.DBus.Error.NoMemory", message: "cannot make a method call")
        }
        defer { dbus_message_unref(message) }
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message, &iterator)
        for argument in arguments { Self.append(argument, to: &iterator) }
        var error = DBusError()
        dbus_error_init(&error)
        let milliseconds = Int32(max(1, min(timeout * 1000, 600_000)))
        guard let reply = dbus_connection_send_with_reply_and_block(connection, message, milliseconds, &error) else {
            defer { dbus_error_free(&error) }
            throw Self.failure(&error, fallback: "no reply")
        }
        defer { dbus_message_unref(reply) }
        return Self.arguments(of: reply)
    }

    /// The next signal routed to this connection, waiting at most `timeout`
    /// seconds (0: only what has arrived); nil when none came in that time.
    /// - Throws: `DBusFailure` when the bus connection is gone
    public func nextSignal(timeout: Double) throws -> DBusSignal? {
        let deadline = Date().addingTimeInterval(max(0, timeout))
        var lookedOnce = false
        while true {
            while let message = dbus_connection_pop_message(connection) {
                defer { dbus_message_unref(message) }
                if dbus_message_get_type(message) == Self.signalMessage {
                    return DBusSignal(path: Self.text(dbus_message_get_path(message)),
                                      interface: Self.text(dbus_message_get_interface(message)),
                                      member: Self.text(dbus_message_get_member(message)),
                                      arguments: Self.arguments(of: message))
                }
            }
            let remaining = deadline.timeIntervalSinceNow
            if lookedOnce, remaining <= 0 { return nil }
            lookedOnce = true
            // waits until something is read or the time is over (at most a minute per turn)
            guard dbus_connection_read_write(connection, Int32(max(0, min(remaining, 60)) * 1000)) != 0 else {
                throw DBusFailure(name: "org.freedesktop.DBus.Error.Disconnected", message: "the bus connection closed")
            }
        }
    }

    // MARK: - Messages

    static let signalMessage: Int32 = 4

    private static func type(_ character: Character) -> Int32 { Int32(character.asciiValue!) }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    private static func failure(_ error: inout DBusError, fallback: String) -> DBusFailure {
        if dbus_error_is_set(&error) != 0 {
            return DBusFailure(name: text(error.name), message: text(error.message))
        }
        return DBusFailure(name: "org.freedesktop.DBus.Error.Failed", message: fallback)
    }

    private static func appendString(_ text: String, type: Int32, to iterator: inout DBusMessageIter) {
        text.withCString { pointer in
            var value: UnsafePointer<CChar>? = pointer
            _ = dbus_message_iter_append_basic(&iterator, type, &value)
        }
    }

    private static func append(_ argument: DBusArgument, to iterator: inout DBusMessageIter) {
        switch argument {
        case .string(let text):
            appendString(text, type: type("s"), to: &iterator)
        case .objectPath(let path):
            appendString(path, type: type("o"), to: &iterator)
        case .bytes(let bytes):
            var array = DBusMessageIter()
            _ = dbus_message_iter_open_container(&iterator, type("a"), "y", &array)
            bytes.withUnsafeBufferPointer { buffer in
                var start = buffer.baseAddress
                _ = dbus_message_iter_append_fixed_array(&array, type("y"), &start, Int32(buffer.count))
            }
            _ = dbus_message_iter_close_container(&iterator, &array)
        case .options(let options):
            var array = DBusMessageIter()
            _ = dbus_message_iter_open_container(&iterator, type("a"), "{sv}", &array)
            for key in options.keys.sorted() {
                var entry = DBusMessageIter()
                _ = dbus_message_iter_open_container(&array, type("e"), nil, &entry)
                appendString(key, type: type("s"), to: &entry)
                var variant = DBusMessageIter()
                _ = dbus_message_iter_open_container(&entry, type("v"), "s", &variant)
                appendString(options[key]!, type: type("s"), to: &variant)
                _ = dbus_message_iter_close_container(&entry, &variant)
                _ = dbus_message_iter_close_container(&array, &entry)
            }
            _ = dbus_message_iter_close_container(&iterator, &array)
        case .booleanVariant(let flag):
            var variant = DBusMessageIter()
            _ = dbus_message_iter_open_container(&iterator, type("v"), "b", &variant)
            var value: dbus_bool_t = flag ? 1 : 0
            _ = dbus_message_iter_append_basic(&variant, type("b"), &value)
            _ = dbus_message_iter_close_container(&iterator, &variant)
        }
    }

    private static func arguments(of message: OpaquePointer) -> [DBusValue] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(message, &iterator) != 0 else { return [] }
        var values: [DBusValue] = []
        repeat {
            values.append(value(&iterator))
        } while dbus_message_iter_next(&iterator) != 0
        return values
    }

    /// The value under the iterator (which must not be at the end).
    private static func value(_ iterator: inout DBusMessageIter) -> DBusValue {
        let kind = dbus_message_iter_get_arg_type(&iterator)
        func basic<T: BitwiseCopyable>(_ initial: T) -> T {
            var value = initial
            withUnsafeMutableBytes(of: &value) { dbus_message_iter_get_basic(&iterator, $0.baseAddress) }
            return value
        }
        switch UInt8(truncatingIfNeeded: kind) {
        case UInt8(ascii: "y"): return .uint(UInt64(basic(UInt8(0))))
        case UInt8(ascii: "b"): return .bool(basic(dbus_bool_t(0)) != 0)
        case UInt8(ascii: "n"): return .int(Int64(basic(Int16(0))))
        case UInt8(ascii: "q"): return .uint(UInt64(basic(UInt16(0))))
        case UInt8(ascii: "i"): return .int(Int64(basic(Int32(0))))
        case UInt8(ascii: "u"), UInt8(ascii: "h"): return .uint(UInt64(basic(UInt32(0))))
        case UInt8(ascii: "x"): return .int(basic(Int64(0)))
        case UInt8(ascii: "t"): return .uint(basic(UInt64(0)))
        case UInt8(ascii: "d"): return .double(basic(Double(0)))
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            let pointer: UnsafePointer<CChar>? = basic(nil)
            return .string(text(pointer))
        case UInt8(ascii: "v"):
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            guard dbus_message_iter_get_arg_type(&inner) != 0 else { return .variant(.array([])) }
            return .variant(value(&inner))
        case UInt8(ascii: "r"):
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            var fields: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&inner) != 0 {
                fields.append(value(&inner))
                dbus_message_iter_next(&inner)
            }
            return .structure(fields)
        case UInt8(ascii: "a"):
            let element = dbus_message_iter_get_element_type(&iterator)
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            if element == type("y") {
                var start: UnsafePointer<UInt8>?
                var count: Int32 = 0
                dbus_message_iter_get_fixed_array(&inner, &start, &count)
                guard let start, count > 0 else { return .bytes([]) }
                return .bytes(Array(UnsafeBufferPointer(start: start, count: Int(count))))
            }
            if element == type("e") {
                var entries: [String: DBusValue] = [:]
                while dbus_message_iter_get_arg_type(&inner) != 0 {
                    var entry = DBusMessageIter()
                    dbus_message_iter_recurse(&inner, &entry)
                    let key = value(&entry)
                    dbus_message_iter_next(&entry)
                    let item = dbus_message_iter_get_arg_type(&entry) != 0 ? value(&entry) : .array([])
                    entries[key.keyText] = item
                    dbus_message_iter_next(&inner)
                }
                return .dictionary(entries)
            }
            var items: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&inner) != 0 {
                items.append(value(&inner))
                dbus_message_iter_next(&inner)
            }
            return .array(items)
        default:
            return .array([])
        }
    }
}

extension DBusValue {
    /// a dictionary key as text (strings and paths as they are, numbers in decimal)
    var keyText: String {
        switch self {
        case .string(let text): text
        case .int(let value): String(value)
        case .uint(let value): String(value)
        case .bool(let value): String(value)
        case .double(let value): String(value)
        default: String(describing: self)
        }
    }
}
