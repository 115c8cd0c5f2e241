"""The drivers' one error root: a device that sent garbage is kept apart from a call we made wrongly."""


class DeviceError(Exception):
    """Root of every error the drivers raise."""


class FrameError(DeviceError, ValueError):
    """The device sent bytes that are not a valid frame or message (garbage on the wire)."""


class UnsupportedDevice(DeviceError, RuntimeError):
    """The device said who it is and we do not support it (model, protocol or firmware version)."""


class DeviceNotResponding(DeviceError, TimeoutError):
    """The device did not answer in time."""


class BackendError(DeviceError, ValueError):
    """A device was asked for with a backend name or option that does not exist or cannot be used.

    `option` names the backend option at fault (e.g. `panel`, the sim panel's address already in
    use), so that whoever took it from a configuration can name the section and key it came from.
    """

    def __init__(self, message: str, *, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option
