import ArgumentParser
import Devices
import USBDriver

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List attached analyzers (model, serial, bus/address)."
    )

    func run() throws {
        let known: [(vendorID: UInt16, productID: UInt16, model: String)] = [
            (HackRFProtocol.vendorID, HackRFProtocol.productID, "HackRF One"),
        ]
        let found = try USBEnumerator.devices(matching: known.map { ($0.vendorID, $0.productID) })
        guard !found.isEmpty else {
            printError("""
                no analyzer found. Check the cable; if `lsusb` lists the device, this user may lack access: \
                \(udevRulesHint). Without hardware, `tscope watch --device demo` runs the built-in demo.
                """)
            throw ExitCode(1)
        }
        for device in found {
            let model = known.first { $0.vendorID == device.vendorID && $0.productID == device.productID }?.model
                ?? device.product ?? "unknown"
            let serial = device.serialNumber ?? "(serial unreadable: access denied? \(udevRulesHint))"
            let bus = String(device.bus), address = String(device.address)
            print("\(model)  serial \(serial)  bus \(bus) address \(address)  id \(device.idString)")
        }
    }
}
