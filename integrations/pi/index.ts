// placeholder
export default function () {}
