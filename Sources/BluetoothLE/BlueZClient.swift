import Foundation

/// A Bluetooth adapter as BlueZ lists it (`org.bluez.Adapter1`).
public struct BLEAdapter: Equatable, Sendable {
    /// the object path, /org/bluez/hci0
    public var path: String
    /// the adapter's name, its path's last part (hci0)
    public var name: String { path.split(separator: "/").last.map(String.init) ?? path }
    public var address: String
    public var powered: Bool
}

/// A device BlueZ knows (`org.bluez.Device1`): seen while scanning, or paired before.
public struct BLEDevice: Equatable, Sendable {
    public var path: String
    /// the adapter's object path
    public var adapterPath: String
    /// the device address, AA:BB:CC:DD:EE:FF
    public var address: String
    /// its advertised name (or BlueZ's alias when it has no name)
    public var name: String
    /// signal strength of the last advertisement [dBm], nil when not seen in this scan
    public var rssi: Int?
    /// service UUIDs advertised or resolved, lower case
    public var uuids: [String]
    public var connected: Bool
    public var servicesResolved: Bool
    public var paired: Bool

    /// the profiles its services offer
    public var profiles: [BLEProfile] { BLEProfile.offered(byServices: uuids) }

    /// Whether `target` names it: its address in either case, or its exact name.
    public func matches(_ target: String) -> Bool {
        address.caseInsensitiveCompare(target) == .orderedSame || name == target
    }

    /// "name (address)" for messages
    public var label: String { name.isEmpty || name == address ? address : "\(name) (\(address))" }
}

/// BlueZ over D-Bus: the objects it manages (ObjectManager.GetManagedObjects),
/// adapters and discovery, connecting a device and waiting for its services,
/// and a characteristic's notifications and writes. One thread uses it; every
/// wait has a deadline.
public final class BlueZClient {
    public let bus: DBusConnection
    static let service = "org.bluez"
    static let properties = "org.freedesktop.DBus.Properties"

    /// A client on the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set).
    public convenience init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let address = environment["DBUS_SYSTEM_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 } ?? DBusConnection.defaultSystemBusAddress
        let bus: DBusConnection
        do {
            bus = try DBusConnection.systemBus(environment: environment)
        } catch let failure as DBusFailure {
            throw BLEError.noBus(address: address, reason: failure.message.isEmpty ? failure.name : failure.message)
        }
        try self.init(bus: bus)
    }

    public init(bus: DBusConnection) throws {
        self.bus = bus
        do {
            try bus.addMatch("type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'")
            try bus.addMatch("type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager'")
        } catch let failure as DBusFailure {
            throw BLEError.bus(failure.description)
        }
    }

    /// Every object BlueZ manages: path → interface → property → value.
    public func managedObjects() throws -> [String: [String: [String: DBusValue]]] {
        let reply: [DBusValue]
        do {
            reply = try bus.call(destination: Self.service, path: "/", interface: "org.freedesktop.DBus.ObjectManager",
                                 method: "GetManagedObjects", timeout: 10)
        } catch let failure as DBusFailure {
            throw BLEError.from(failure)
        }
        var objects: [String: [String: [String: DBusValue]]] = [:]
        for (path, interfaces) in reply.first?.dictionary ?? [:] {
            var byInterface: [String: [String: DBusValue]] = [:]
            for (name, properties) in interfaces.dictionary ?? [:] { byInterface[name] = properties.dictionary ?? [:] }
            objects[path] = byInterface
        }
        return objects
    }

    /// Every adapter, in path order.
    public func adapters() throws -> [BLEAdapter] {
        try managedObjects().compactMap { path, interfaces -> BLEAdapter? in
            guard let adapter = interfaces["org.bluez.Adapter1"] else { return nil }
            return BLEAdapter(path: path, address: adapter["Address"]?.string ?? "", powered: adapter["Powered"]?.bool ?? false)
        }.sorted { $0.path < $1.path }
    }

    /// The adapter to use: the one named (hci1), else the first powered one.
    /// - Throws: no adapter, no such adapter, or (the named one, or every one) powered off
    public func adapter(named name: String?) throws -> BLEAdapter {
        let all = try adapters()
        guard !all.isEmpty else { throw BLEError.noAdapter }
        if let name {
            guard let adapter = all.first(where: { $0.name == name || $0.path == name || $0.address.caseInsensitiveCompare(name) == .orderedSame }) else {
                throw BLEError.adapterNotFound(name: name, available: all.map(\.name))
            }
            guard adapter.powered else { throw BLEError.adapterPoweredOff(name: adapter.name) }
            return adapter
        }
        guard let powered = all.first(where: \.powered) else { throw BLEError.adapterPoweredOff(name: all[0].name) }
        return powered
    }

    /// The devices BlueZ knows on `adapter`, in address order.
    public func devices(on adapter: BLEAdapter) throws -> [BLEDevice] {
        try managedObjects().compactMap { path, interfaces -> BLEDevice? in
            guard let device = interfaces["org.bluez.Device1"] else { return nil }
            let adapterPath = device["Adapter"]?.string ?? ""
            guard adapterPath == adapter.path else { return nil }
            let address = device["Address"]?.string ?? ""
            return BLEDevice(path: path, adapterPath: adapterPath, address: address,
                             name: device["Name"]?.string ?? device["Alias"]?.string ?? address,
                             rssi: device["RSSI"]?.integer, uuids: (device["UUIDs"]?.strings ?? []).map(BLEUUID.normalised),
                             connected: device["Connected"]?.bool ?? false,
                             servicesResolved: device["ServicesResolved"]?.bool ?? false,
                             paired: device["Paired"]?.bool ?? false)
        }.sorted { $0.address < $1.address }
    }

    /// Scans for `seconds` (Bluetooth LE only) and returns the devices then known on the adapter.
    public func scan(on adapter: BLEAdapter, seconds: Double) throws -> [BLEDevice] {
        try discovering(on: adapter) {
            let deadline = Date().addingTimeInterval(seconds)
            while deadline.timeIntervalSinceNow > 0 {
                _ = try nextSignal(timeout: deadline.timeIntervalSinceNow)
            }
        }
        return try devices(on: adapter)
    }

    /// The device `target` names (address in either case, or exact name): one
    /// BlueZ already knows, else the first that turns up in `seconds` of scanning.
    public func findDevice(_ target: String, on adapter: BLEAdapter, seconds: Double) throws -> BLEDevice {
        if let known = try devices(on: adapter).first(where: { $0.matches(target) }) { return known }
        var found: BLEDevice?
        try discovering(on: adapter) {
            let deadline = Date().addingTimeInterval(seconds)
            while found == nil, deadline.timeIntervalSinceNow > 0 {
                if let signal = try nextSignal(timeout: min(0.25, deadline.timeIntervalSinceNow)),
                   signal.member == "InterfacesAdded" || signal.member == "PropertiesChanged" {
                    found = try devices(on: adapter).first { $0.matches(target) }
                } else if found == nil {
                    found = try devices(on: adapter).first { $0.matches(target) }
                }
            }
        }
        guard let found else { throw BLEError.deviceNotFound(target: target, seconds: seconds) }
        return found
    }

    /// Runs `body` with discovery on (LE only), and stops discovery after it, whatever happened.
    private func discovering(on adapter: BLEAdapter, _ body: () throws -> Void) throws {
        let adapterInterface = "org.bluez.Adapter1"
        // best effort: older BlueZ or a stand-in may not know the filter
        _ = try? bus.call(destination: Self.service, path: adapter.path, interface: adapterInterface,
                          method: "SetDiscoveryFilter", arguments: [.options(["Transport": "le"])], timeout: 5)
        do {
            try bus.call(destination: Self.service, path: adapter.path, interface: adapterInterface, method: "StartDiscovery", timeout: 10)
        } catch let failure as DBusFailure where failure.name == "org.bluez.Error.InProgress" {
            // someone else is scanning: their discovery serves
        } catch let failure as DBusFailure {
            if failure.name == "org.bluez.Error.NotReady" { throw BLEError.adapterPoweredOff(name: adapter.name) }
            throw BLEError.from(failure)
        }
        defer {
            _ = try? bus.call(destination: Self.service, path: adapter.path, interface: adapterInterface, method: "StopDiscovery", timeout: 5)
        }
        try body()
    }

    /// The next signal from BlueZ within `timeout` seconds.
    public func nextSignal(timeout: Double) throws -> DBusSignal? {
        do {
            return try bus.nextSignal(timeout: timeout)
        } catch let failure as DBusFailure {
            throw BLEError.bus("the system bus went away (\(failure.message))")
        }
    }

    /// One property of an object (Properties.Get).
    public func property(_ name: String, of interface: String, at path: String) throws -> DBusValue? {
        do {
            return try bus.call(destination: Self.service, path: path, interface: Self.properties, method: "Get",
                                arguments: [.string(interface), .string(name)], timeout: 5).first?.unwrapped
        } catch let failure as DBusFailure where failure.name == "org.freedesktop.DBus.Error.UnknownObject"
                    || failure.name == "org.freedesktop.DBus.Error.UnknownMethod"
                    || failure.name == "org.freedesktop.DBus.Error.InvalidArgs" {
            return nil
        } catch let failure as DBusFailure {
            throw BLEError.from(failure)
        }
    }

    /// Connects `device` (if it is not) and waits until BlueZ has resolved its services, at most `timeout` seconds.
    public func connect(_ device: BLEDevice, timeout: Double) throws {
        let deadline = Date().addingTimeInterval(timeout)
        do {
            try bus.call(destination: Self.service, path: device.path, interface: "org.bluez.Device1", method: "Connect",
                         timeout: max(1, timeout))
        } catch let failure as DBusFailure where failure.name == "org.bluez.Error.AlreadyConnected" {
            // connected already: go on to the services
        } catch let failure as DBusFailure {
            if failure.name == "org.freedesktop.DBus.Error.NoReply" {
                throw BLEError.connectFailed(device: device.label, reason: "no answer in \(BLEError.seconds(timeout)) (out of range?)")
            }
            throw BLEError.from(failure, device: device.label, address: device.address)
        }
        while try property("ServicesResolved", of: "org.bluez.Device1", at: device.path)?.bool != true {
            guard deadline.timeIntervalSinceNow > 0 else {
                throw BLEError.connectFailed(device: device.label, reason: "connected, but BlueZ did not resolve its services in \(BLEError.seconds(timeout))")
            }
            _ = try nextSignal(timeout: min(0.1, max(0, deadline.timeIntervalSinceNow)))
        }
    }

    /// The GATT characteristics under a connected device: lower-case UUID → object path,
    /// with the services they belong to.
    public func characteristics(of device: BLEDevice) throws -> (services: [String], characteristics: [String: String]) {
        var services: [String] = []
        var characteristics: [String: String] = [:]
        for (path, interfaces) in try managedObjects() where path.hasPrefix(device.path + "/") {
            if let service = interfaces["org.bluez.GattService1"], let uuid = service["UUID"]?.string {
                services.append(BLEUUID.normalised(uuid))
            }
            if let characteristic = interfaces["org.bluez.GattCharacteristic1"], let uuid = characteristic["UUID"]?.string {
                characteristics[BLEUUID.normalised(uuid)] = path
            }
        }
        return (services.sorted(), characteristics)
    }

    /// Asks for the characteristic's notifications (each value then arrives as a PropertiesChanged "Value").
    public func startNotify(_ path: String, device: BLEDevice) throws {
        do {
            try bus.call(destination: Self.service, path: path, interface: "org.bluez.GattCharacteristic1", method: "StartNotify", timeout: 10)
        } catch let failure as DBusFailure where failure.name == "org.bluez.Error.InProgress" {
            // already notifying
        } catch let failure as DBusFailure {
            throw BLEError.from(failure, device: device.label, address: device.address)
        }
    }

    /// Writes `bytes` to the characteristic (a write with response).
    public func writeValue(_ bytes: [UInt8], to path: String, device: BLEDevice) throws {
        do {
            try bus.call(destination: Self.service, path: path, interface: "org.bluez.GattCharacteristic1", method: "WriteValue",
                         arguments: [.bytes(bytes), .options(["type": "request"])], timeout: 10)
        } catch let failure as DBusFailure {
            throw BLEError.from(failure, device: device.label, address: device.address)
        }
    }

    /// Disconnects the device (best effort; used when a run ends).
    public func disconnect(_ device: BLEDevice) {
        _ = try? bus.call(destination: Self.service, path: device.path, interface: "org.bluez.Device1", method: "Disconnect", timeout: 5)
    }
}
