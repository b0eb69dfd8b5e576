import Signals
import USBDriver

/// Faults a serial-analyzer emulator injects into its bulk IN packets at
/// seeded random points, for resilience tests: the same seed gives the same
/// faults at the same packets.
public struct EmulatorFaults: Sendable, Equatable {
    public var seed: UInt64
    /// per packet: answer nothing (NAK) for `stallPackets` calls
    public var stallProbability: Double
    public var stallPackets: Int
    /// per packet: the packet is lost
    public var dropProbability: Double
    /// per packet: one garbage byte is inserted at a random position
    public var corruptProbability: Double
    /// per packet: the device is unplugged (every later call fails)
    public var disconnectProbability: Double

    public init(seed: UInt64, stallProbability: Double = 0, stallPackets: Int = 50, dropProbability: Double = 0,
                corruptProbability: Double = 0, disconnectProbability: Double = 0) {
        self.seed = seed
        self.stallProbability = stallProbability
        self.stallPackets = stallPackets
        self.dropProbability = dropProbability
        self.corruptProbability = corruptProbability
        self.disconnectProbability = disconnectProbability
    }
}

/// Decides, packet by packet, which fault (if any) strikes.
struct FaultInjector {
    enum Decision: Equatable {
        case deliver
        case stall
        case drop
        /// insert a garbage byte at this position (0…packet length)
        case corrupt(at: Int)
        case disconnect
    }

    let faults: EmulatorFaults
    private var random: SeededRandom
    private var stallLeft = 0
    private(set) var unplugged = false

    init(_ faults: EmulatorFaults) {
        self.faults = faults
        random = SeededRandom(seed: faults.seed)
    }

    /// The fate of the next packet of `length` bytes.
    mutating func decide(length: Int) -> Decision {
        if unplugged { return .disconnect }
        if stallLeft > 0 {
            stallLeft -= 1
            return .stall
        }
        let roll = random.unit()
        var edge = faults.disconnectProbability
        if roll < edge {
            unplugged = true
            return .disconnect
        }
        edge += faults.stallProbability
        if roll < edge {
            stallLeft = max(0, faults.stallPackets - 1)
            return .stall
        }
        edge += faults.dropProbability
        if roll < edge { return .drop }
        edge += faults.corruptProbability
        if roll < edge { return .corrupt(at: Int(random.next() % UInt64(length + 1))) }
        return .deliver
    }
}
